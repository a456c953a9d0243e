"""Access allowlists and untrusted index hints: two per-chunk checks that only ever deny."""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.chunk_list import metadata_of
from rag_guard_integrations.core.constraints import MATCH_ALL, MATCH_ANY, Allowed, Constraints
from rag_guard_integrations.core.errors import PatternCompileError, PatternTooLargeError
from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize
from rag_guard_integrations.core.patterns import compile_untrusted, matches
from rag_guard_integrations.core.reasons import Reason
from rag_guard_integrations.guards.stage import Part, Pushdown, Quiet, StageSpec
from rag_guard_integrations.policy.loader import load_policy

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.core.chunk import Chunk
    from rag_guard_integrations.core.constraints import Match
    from rag_guard_integrations.core.stage import Request
    from rag_guard_integrations.policy.loader import PolicyRef
    from rag_guard_integrations.policy.schema import Policy

__all__ = ["AccessGuard", "Constraints", "HintGuard"]  # Constraints: its former home

HINT_SUFFIX = "_regex_hint"
# The hints of one chunk together compile to at most this many RE2 instructions: each runs over
# the whole text, so this bounds the hint work per character of the chunk.
MAX_HINT_PROGRAM_PER_CHUNK = 2000
MAX_HINTS_PER_CHUNK = 8
# And their instructions times the bytes of the (normalised) text stay within this budget. A
# hint can defeat RE2's DFA (``a[ab]{480}c`` on a text of a and b fills its cache at once), and
# RE2 then steps every instruction on every byte: measured here at up to 9 ns per instruction
# and byte, so a chunk's hints cost at most about 9 ms, whatever the text.
MAX_HINT_WORK = 1_000_000


class AccessGuard:
    """Deny a chunk unless each access-controlled attribute's value is in the caller's allowlist.

    Default deny: an attribute the context does not mention, or the chunk does not carry, is
    denied. A list of values passes when every value is allowed (``match="all"``, the default)
    or, for an attribute the policy marks ``match: any``, when one of them is. Reasons name the
    attribute, never the chunk's value (records carry them whole; the value is in the chunk's
    metadata), and are shared, so a denial costs no new object.

    Example:
        >>> from rag_guard_integrations import AccessContext, Chunk
        >>> from rag_guard_integrations.core.stage import Request
        >>> guard = AccessGuard(["contract_type"])
        >>> request = Request("q", "q", (), AccessContext(contract_type={"MSA"}))
        >>> guard(Chunk("...", {"contract_type": "SOW"}), request)
        "contract_type value is not in the caller's allowlist"
        >>> shared = AccessGuard(["groups"], match={"groups": "any"})
        >>> request = Request("q", "q", (), AccessContext(groups={"hr"}))
        >>> shared(Chunk("...", {"groups": ["hr", "finance"]}), request) is None
        True
    """

    name = "access"
    reports = None

    def __init__(self, attributes: Sequence[str], match: Mapping[str, Match] | None = None) -> None:
        self.attributes = tuple(attributes)
        self.match = {a: (match or {}).get(a, MATCH_ALL) for a in self.attributes}
        self._ungranted = {
            a: Reason.fixed(f"the access context grants no {a} (default deny)")
            for a in self.attributes
        }
        self._missing = {
            a: Reason.fixed(f"the chunk carries no {a} (default deny)") for a in self.attributes
        }
        self._outside = {
            a: Reason.fixed(
                f"{a} holds no value in the caller's allowlist"
                if self.match[a] == MATCH_ANY
                else f"{a} value is not in the caller's allowlist"
            )
            for a in self.attributes
        }

    @classmethod
    def from_policy(cls, policy: PolicyRef) -> AccessGuard | None:
        """The access check of ``policy``, or None when it declares no access attributes."""
        policy = load_policy(policy)
        access = policy.access
        return cls(access.attributes, access.match) if access.attributes else None

    def __call__(self, chunk: Chunk, request: Request) -> Reason | None:
        return self.check_many((chunk,), self.prepare(request).state)[0]

    def prepare(self, request: Request) -> Part:
        """The caller's allowlists, read once per request: ``(attribute, Allowed)`` pairs, or
        the reason every chunk is denied (an attribute the access context does not mention)."""
        access = request.access
        allowed: list[tuple[str, Allowed]] = []
        for attribute in self.attributes:
            values = None if access is None else access.allowlist(attribute)
            if values is None:
                return Part(self._ungranted[attribute])
            allowed.append((attribute, Allowed(values, self.match[attribute])))
        return Part(tuple(allowed))

    def pushdown(self, part: Part, request: Request) -> Pushdown:
        """Each attribute's allowlist with its match mode; None when one allows nothing."""
        state = part.state
        if isinstance(state, Reason) or any(not allow.values for _, allow in state):
            return _NOTHING
        return Pushdown(dict(state))

    def check_many(self, chunks: Sequence[Chunk], state: object) -> list[Reason | None]:
        """Why each chunk is denied (None: it passes), by the allowlists :meth:`prepare` read."""
        if isinstance(state, Reason):
            return [state] * len(chunks)
        assert isinstance(state, tuple)
        if len(state) == 1:  # the common case: one attribute, judged in one pass
            ((attribute, allow),) = state
            admits, values, missing, outside = (
                allow.admits,
                allow.values,
                self._missing[attribute],
                self._outside[attribute],
            )
            # A single string value is judged inline, as Allowed.admits would.
            return [
                None
                if (
                    value in values
                    if type(value := metadata.get(attribute)) is str
                    else admits(value)
                )
                else (missing if value is None else outside)
                for metadata in metadata_of(chunks)
            ]
        return [self._denial(metadata, state) for metadata in metadata_of(chunks)]

    def _denial(
        self, metadata: Mapping[str, object], allowed: Sequence[tuple[str, Allowed]]
    ) -> Reason | None:
        for attribute, allow in allowed:
            value = metadata.get(attribute)
            if value is None:
                return self._missing[attribute]
            if not allow.admits(value):
                return self._outside[attribute]
        return None


class HintGuard(Quiet):
    """Every metadata ``*_regex_hint`` is untrusted index data: the text must match it too.

    A hint can only add a restriction. One that RE2 cannot compile within the small budget of
    untrusted patterns, or that is too large (see :func:`compile_untrusted`), denies the chunk,
    and so do more than ``MAX_HINTS_PER_CHUNK`` hints, hints that together exceed
    ``MAX_HINT_PROGRAM_PER_CHUNK`` instructions, and hints whose instructions times the bytes
    of the normalised text exceed ``MAX_HINT_WORK``: RE2 may step every instruction on every
    byte, so that product bounds the work, and a chunk's hints cost milliseconds at most,
    however long its text. Records name no hint key or pattern (both are the chunk's).

    Example:
        >>> from rag_guard_integrations import Chunk
        >>> guard = HintGuard()
        >>> guard(Chunk("net 30 days", {"terms_regex_hint": r"\\d+ days"}), None) is None
        True
        >>> guard(Chunk("ab" * 30_000, {"x_regex_hint": "a[ab]{480}c"}), None).record
        'untrusted hints would take more RE2 work on this text than the budget allows (denied)'
    """

    name = "hint"

    def check_many(self, chunks: Sequence[Chunk], state: object = None) -> list[Reason | None]:
        """:meth:`__call__` for each chunk. Keys are looked at all at once first: when no key
        of any chunk holds the hint suffix, no chunk has a hint."""
        try:
            keys = "\0".join(chain.from_iterable(metadata_of(chunks)))
        except TypeError:  # a key that is not a string: each chunk looks at its own keys
            keys = HINT_SUFFIX
        if HINT_SUFFIX not in keys:
            return [None] * len(chunks)
        return [
            self(chunk, None) if any(map(_is_hint, chunk.metadata)) else None for chunk in chunks
        ]

    def __call__(self, chunk: Chunk, request: Request | None) -> Reason | None:
        hints = [(key, hint) for key, hint in chunk.metadata.items() if _is_hint(key)]
        if not hints:
            return None
        program = _program(hints)
        if isinstance(program, Reason):
            return program
        text = chunk.text
        folded = normalize(text)  # cached for texts of chunk size
        size = len(folded) if folded.isascii() else len(folded.encode("utf-8", "surrogatepass"))
        if program * size > MAX_HINT_WORK:
            return _OVER_WORK
        long = len(text) > CACHED_CHARS
        for key, hint in hints:
            # A short text's verdicts are cached per hint; a long one is searched as folded.
            if long:
                found = compile_untrusted(hint).search(folded) is not None
            else:
                found = matches(hint, text, untrusted=True)
            if not found:
                return Reason(
                    f"the text does not match its own {key}",
                    "the text does not match one of its untrusted hints",
                )
        return None


_OVER_WORK = Reason.fixed(
    "untrusted hints would take more RE2 work on this text than the budget allows (denied)"
)


def _program(hints: list[tuple[str, object]]) -> int | Reason:
    """The RE2 instructions of the hints together, or why they may not run (not patterns, too
    many, too large)."""
    if len(hints) > MAX_HINTS_PER_CHUNK:
        return Reason.fixed(
            f"the chunk brings {len(hints)} untrusted hints, more than {MAX_HINTS_PER_CHUNK}"
        )
    program = 0
    for key, hint in hints:
        if not isinstance(hint, str):
            return Reason(
                f"untrusted {key} is {a_type(hint)}, not a pattern (denied)",
                "an untrusted hint is not a pattern (denied)",
            )
        try:
            program += compile_untrusted(hint).programsize
        except PatternTooLargeError as error:
            return Reason(
                f"untrusted {key} is too large: {error} (denied)",
                "an untrusted hint is too large (denied)",
            )
        except PatternCompileError:
            return Reason(
                f"untrusted {key} cannot be compiled by RE2 (denied)",
                "an untrusted hint cannot be compiled by RE2 (denied)",
            )
    if program > MAX_HINT_PROGRAM_PER_CHUNK:
        return Reason.fixed(
            f"untrusted hints compile to {program} RE2 instructions together, more than "
            f"{MAX_HINT_PROGRAM_PER_CHUNK} (denied)"
        )
    return program


def _is_hint(key: object) -> bool:
    return isinstance(key, str) and key.endswith(HINT_SUFFIX)


_NOTHING = Pushdown(None)


def _access_stage(policy: Policy, inputs: object) -> AccessGuard | None:
    return AccessGuard.from_policy(policy)


def _hint_stage(policy: Policy, inputs: object) -> HintGuard:
    return HintGuard()


ACCESS_STAGE = StageSpec("access", "access", "chunk", _access_stage)
HINT_STAGE = StageSpec("hint", "(every chunk's *_regex_hint metadata)", "chunk", _hint_stage)
