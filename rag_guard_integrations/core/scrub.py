"""Keep chunk text out of reasons: error messages are scrubbed of anything a chunk says."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

# A shorter run is too common to mean anything; a longer one may be a password or a name.
MIN_RUN = 6
MAX_MESSAGE = 300
MARK = "[chunk text]"


def without_chunk_text(message: str, texts: Iterable[str]) -> str:
    """``message`` (cut to 300 characters) with every run of 6 or more characters that occurs
    in one of ``texts`` (case-insensitively) replaced by ``[chunk text]``.

    Used on the rare failure path, for exception messages and classifier errors, so that a
    reason (and every record built from it) holds no text derived from a chunk.

    Example:
        >>> without_chunk_text("ValueError: bad reply 'pw=hunter2'", ["login pw=hunter2"])
        "ValueError: bad reply '[chunk text]'"
    """
    message = message[:MAX_MESSAGE]
    folded = [text.casefold() for text in texts if text]
    if not folded:
        return message

    def occurs(start: int, end: int) -> bool:
        piece = message[start:end].casefold()
        return any(piece in text for text in folded)

    out: list[str] = []
    start = 0
    while start < len(message):
        end = start + MIN_RUN
        if end <= len(message) and occurs(start, end):
            while end < len(message) and occurs(start, end + 1):
                end += 1
            if not out or out[-1] != MARK:
                out.append(MARK)
            start = end
        else:
            out.append(message[start])
            start += 1
    return "".join(out)
