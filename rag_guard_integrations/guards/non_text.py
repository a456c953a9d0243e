"""The non-text stage: deny a chunk whose source holds content no text check can judge (an
image, audio, video, or no text at all), unless the policy sets ``allow_non_text: true``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.chunk_list import ChunkList
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.guards.stage import Quiet, StageSpec
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import Policy


@dataclass(frozen=True, slots=True, eq=False)
class NonTextChunk(Chunk):
    """A chunk whose source also holds what its ``text`` cannot show: ``kinds`` names it
    (``"image"``, ``"audio"``, ``"video"``, ``"empty text"``). An adapter builds one for such a
    node, so the decision on it is the guard's, recorded like any other.

    Example:
        >>> NonTextChunk("caption", {"contract_type": "MSA"}, kinds=("image",)).kinds
        ('image',)
    """

    kinds: tuple[str, ...] = ()


class NonTextGuard(Quiet):
    """Deny every :class:`NonTextChunk`: the other stages judge text, and its other content
    would reach the LLM unjudged. Plain chunks always pass this stage.

    Example:
        >>> guard = NonTextGuard()
        >>> guard(Chunk("text"), None) is None
        True
        >>> guard(NonTextChunk("", kinds=("image",)), None).split(";")[0]
        'no content check can judge this chunk (image)'
    """

    name = "non_text"

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> NonTextGuard | None:
        """The stage, or None when the policy lets non-text content through."""
        return None if load_policy(policy).allow_non_text else cls()

    def __call__(self, chunk: Chunk, request: Request | None) -> str | None:
        """Why ``chunk`` is denied, or None when it is a plain text chunk."""
        if not isinstance(chunk, NonTextChunk):
            return None
        # The kinds are the adapter's fixed words (image, audio, ...): the record may hold them.
        kinds = ", ".join(chunk.kinds) or "not text"
        return Reason.fixed(
            f"no content check can judge this chunk ({kinds}); denied unless the policy sets "
            "allow_non_text: true"
        )

    def check_many(self, chunks: Sequence[Chunk], state: object = None) -> list[str | None]:
        """:meth:`__call__` over ``chunks``; most are plain, so their types are looked at
        all at once first."""
        if (type(chunks) is ChunkList and chunks.plain) or {*map(type, chunks)} <= _PLAIN:
            return [None] * len(chunks)
        return [self(chunk, None) if type(chunk) is not Chunk else None for chunk in chunks]


_PLAIN = frozenset({Chunk})


def _stage(policy: Policy, inputs: object) -> NonTextGuard | None:
    return NonTextGuard.from_policy(policy)


STAGE = StageSpec("non_text", "allow_non_text", "chunk", _stage)
