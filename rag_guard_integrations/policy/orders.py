"""The kinds of order a policy setting can have (ranked choices, bounds, lists that add or
widen, values with no order, texts, sections and keyed collections): each says which of two
values is the stricter, and whether a file's new value relaxes the one it inherits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rag_guard_integrations.core.errors import Unordered


@dataclass(frozen=True)
class Ranked:
    """A choice among ``values``, listed from the loosest to the strictest.

    ``loud``: where values differ beside each other, the load fails instead of the stricter
    one winning: the setting switches checks off wholesale, so a policy holding the looser
    value is a trial that a silent win would turn into enforcement.
    """

    values: tuple[Any, ...]
    loud: bool = False

    def merge(self, a: Any, b: Any) -> Any:
        return a if self.values.index(a) >= self.values.index(b) else b

    def loosens(self, new: Any, old: Any) -> bool:
        return bool(self.values.index(new) < self.values.index(old))

    def inherit(self, old: Any, new: Any) -> Any:
        return new

    def why(self, new: Any, old: Any) -> str:
        return f"{new!r} is looser than the inherited {old!r}"


@dataclass(frozen=True)
class Bound:
    """A number whose ``highest`` or ``lowest`` value is the strictest. ``None`` stands for a
    default the policy cannot see (a classifier's own threshold): it merges only with None."""

    strictest: Literal["highest", "lowest"]

    def merge(self, a: Any, b: Any) -> Any:
        if a is None or b is None:
            if a is not b:
                raise Unordered
            return None
        return max(a, b) if self.strictest == "highest" else min(a, b)

    def loosens(self, new: Any, old: Any) -> bool:
        if new is None or old is None:
            return new is not old
        return bool(new < old if self.strictest == "highest" else new > old)

    def inherit(self, old: Any, new: Any) -> Any:
        return new

    def why(self, new: Any, old: Any) -> str:
        if new is None or old is None:
            return (
                f"{new!r} cannot be compared with the inherited {old!r} (unset means the "
                "classifier's own)"
            )
        return f"{new!r} is looser than the inherited {old!r}"


@dataclass(frozen=True)
class Union:
    """A list where each item adds a restriction (a blocked term, a checked attribute): every
    item of every policy applies. An extending file adds items; it removes one with loosen."""

    def merge(self, a: list[Any], b: list[Any]) -> list[Any]:
        return [*a, *(item for item in b if item not in a)]

    def loosens(self, new: list[Any], old: list[Any]) -> bool:
        return False

    def inherit(self, old: list[Any], new: list[Any]) -> list[Any]:
        return self.merge(old, new)

    def why(self, new: list[Any], old: list[Any]) -> str:
        return "drops items"


@dataclass(frozen=True)
class Intersection:
    """A list where each item widens what passes (a domain root, a key that may carry an
    identifier): only items every policy lists apply. An extending file that lists an item its
    parent does not widens it, which needs loosen."""

    def merge(self, a: list[Any], b: list[Any]) -> list[Any]:
        return [item for item in a if item in b]

    def loosens(self, new: list[Any], old: list[Any]) -> bool:
        return any(item not in old for item in new)

    def inherit(self, old: list[Any], new: list[Any]) -> list[Any]:
        return new

    def why(self, new: list[Any], old: list[Any]) -> str:
        added = ", ".join(repr(item) for item in new if item not in old)
        return f"adds {added} to the inherited list, and each item lets more through"


@dataclass(frozen=True)
class UnsetStrictest:
    """An optional pattern that enables a way to accept (tier 2's identifier): unset is the
    strictest; two different patterns have no order."""

    def merge(self, a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        if a != b:
            raise Unordered
        return a

    def loosens(self, new: Any, old: Any) -> bool:
        return new is not None and new != old

    def inherit(self, old: Any, new: Any) -> Any:
        return new

    def why(self, new: Any, old: Any) -> str:
        if old is None:
            return f"{new!r} enables a way to accept that the inherited {old!r} leaves off"
        return f"{new!r} replaces the inherited {old!r}, and the two have no order"


@dataclass(frozen=True)
class Same:
    """A value with no order (a date field, a score source, a recogniser's label, a clause or
    pattern definition): policies merged beside each other must agree; an extending file that
    changes it needs loosen."""

    def merge(self, a: Any, b: Any) -> Any:
        if a != b:
            raise Unordered
        return a

    def loosens(self, new: Any, old: Any) -> bool:
        return bool(new != old)

    def inherit(self, old: Any, new: Any) -> Any:
        return new

    def why(self, new: Any, old: Any) -> str:
        return f"{new!r} replaces the inherited {old!r}, and the two have no order"


@dataclass(frozen=True)
class Definition(Same):
    """A label's description (what the embedding classifier looks for): an empty one takes the
    other's; two different ones have no order."""

    def merge(self, a: Any, b: Any) -> Any:
        if a and b and a != b:
            raise Unordered
        return a or b

    def loosens(self, new: Any, old: Any) -> bool:
        return bool(old) and new != old


@dataclass(frozen=True)
class Text:
    """A text shown to the user (a refusal, a rule's message). Texts loosen nothing and have no
    order: beside each other, the first policy named that sets one speaks (None or an empty
    text is unset); an extending file's text replaces the inherited one without loosen."""

    def merge(self, a: str | None, b: str | None) -> str | None:
        return a if a else b

    def loosens(self, new: str, old: str) -> bool:
        return False

    def inherit(self, old: str, new: str) -> str:
        return new

    def why(self, new: str, old: str) -> str:
        return "is a text"


@dataclass(frozen=True)
class Section:
    """A mapping of settings, each with its own entry in the table. ``optional``: a policy may
    leave it out (``domain``, ``recency``), which is the loosest (no such check); removing an
    inherited one (``domain: null``) needs loosen. ``widens``: the section is a way in rather
    than a check (``domain.kinds`` admits queries the other tiers would refuse): none is the
    stricter, so beside a policy without it the section is dropped, and an extending file adds
    it only with loosen."""

    optional: bool = False
    widens: bool = False


@dataclass(frozen=True)
class Keyed:
    """A collection whose entries merge key by key: a mapping, or a list of mappings keyed by
    their ``key`` field (rules and patterns by ``name``).

    ``entry``: how two entries under one key merge, or None when each field has its own table
    entry (``rules.*.action``). ``by_origin``: an entry is one definition (a rule, a clause);
    the same key defined by two files is an error, while one file's entry reached twice (a
    shared ``extends``) is merged as one. ``widens``: a new key lets more through (a clause a
    query may ask for), so policies merged beside each other must hold the same keys and an
    extending file adds one only with loosen; otherwise a new key only adds a restriction.
    ``labels``: the keys are labels, compared as the guard reads them (case-folded and
    squeezed), so ``Payment Card`` cannot stand beside ``payment_card`` as another entry.
    """

    key: str | None = None
    entry: Ranked | Same | None = None
    by_origin: bool = False
    widens: bool = False
    labels: bool = False


Leaf = Ranked | Bound | Union | Intersection | UnsetStrictest | Same | Text
Order = Leaf | Section | Keyed
