"""The order of strictness of every policy setting: the one table both kinds of merge read.

Two policies meet in two ways, and the table serves both:

- **beside** each other (``load_policy(a, b)``, ``Guard.from_policy("default", "trial.yaml")``,
  or the files one ``extends`` list names): for every setting the stricter value wins. A
  setting whose values have no order (:class:`~.orders.Same`) must agree, else the load fails;
  so does a ``loud`` setting, and a value a side relaxed on purpose (its ``loosen`` list),
  rather than losing silently.
- **extended** by a file (``extends: [default]``): the file refines what it inherits. A value
  that is not at least as strict as the inherited one fails the load unless the file lists the
  setting under ``loosen``; then the file's value replaces the inherited one.

Paths are dotted (``domain.min_similarity``); ``*`` stands for one key of a keyed collection
(``rules.*.action``). Every field of :class:`~rag_guard_integrations.policy.schema.Policy`
and its sections is either here or in :data:`STRUCTURAL`, and a test holds the two to it.

Example:
    >>> STRICTNESS["on_no_intent"].merge("access_only", "refuse")
    'refuse'
    >>> STRICTNESS["domain.min_similarity"].merge(0.45, -1.0)
    0.45
    >>> STRICTNESS["domain.blocklist"].merge(["crypto"], ["pizza", "crypto"])
    ['crypto', 'pizza']
"""

from __future__ import annotations

from rag_guard_integrations.core.constraints import MATCH_ALL, MATCH_ANY
from rag_guard_integrations.policy.orders import (
    Bound,
    Definition,
    Intersection,
    Keyed,
    Order,
    Ranked,
    Same,
    Section,
    Text,
    Union,
    UnsetStrictest,
)

_RULE_ACTIONS = ("warn", "redact", "block")
_MODES = ("shadow", "enforce")

STRICTNESS: dict[str, Order] = {
    "": Section(),
    "version": Same(),
    "mode": Ranked(_MODES, loud=True),
    "recognizers": Ranked(("with_classify", "always"), loud=True),
    "classify": Ranked(("never", "fill_missing", "always")),
    "on_unknown_label": Ranked(("report", "block")),
    "on_block": Ranked(("drop_chunks", "empty", "raise")),
    "on_no_intent": Ranked(("access_only", "refuse")),
    "allow_non_text": Ranked((True, False)),
    "no_context_refusal": Text(),
    "access": Section(),
    "access.attributes": Union(),
    "access.match": Keyed(entry=Ranked((MATCH_ANY, MATCH_ALL))),
    # How a question names an attribute's values: two policies must agree per attribute.
    "access.mentions": Keyed(entry=Same()),
    "clauses": Keyed(entry=Same(), by_origin=True, widens=True),
    "domain": Section(optional=True),
    "domain.blocklist": Union(),
    "domain.identifier_pattern": UnsetStrictest(),
    "domain.identifier_keys": Intersection(),
    "domain.identifier_word_prefixes": Union(),
    "domain.roots": Intersection(),
    "domain.root_context": Intersection(),
    "domain.root_window": Bound("lowest"),
    "domain.signature_terms": Intersection(),
    "domain.root_min_similarity": Bound("highest"),
    "domain.min_similarity": Bound("highest"),
    "domain.retriever_scores": Same(),
    "domain.refusal": Text(),
    # A misspelt root read as the root lets more queries in.
    "domain.root_typos": Ranked((True, False)),
    # The question-kind tier: in-domain prototypes let queries in, everyday ones keep them out.
    "domain.kinds": Section(optional=True, widens=True),
    "domain.kinds.in_domain": Intersection(),
    "domain.kinds.everyday": Union(),
    "domain.kinds.placeholder": Same(),
    "domain.kinds.min_margin": Bound("highest"),
    "domain.kinds.min_similarity": Bound("highest"),
    "domain.kinds.everyday_margin": Bound("lowest"),
    "recency": Section(optional=True),
    "recency.field": Same(),
    "recency.max_age_days": Bound("lowest"),
    "acl_freshness": Section(optional=True),
    "acl_freshness.field": Same(),
    "acl_freshness.max_age_days": Bound("lowest"),
    "linking": Section(),
    "linking.keys": Union(),
    "classifiers": Section(),
    "classifiers.patterns": Keyed(key="name", entry=Same()),
    "classifiers.builtin": Keyed(entry=Same()),
    "classifiers.ner": Keyed(entry=Same()),
    "labels": Keyed(labels=True),
    "labels.*.description": Definition(),
    "labels.*.threshold": Bound("lowest"),
    "rules": Keyed(key="name", by_origin=True),
    "rules.*.name": Same(),
    "rules.*.action": Ranked(_RULE_ACTIONS),
    "rules.*.mode": Ranked(_MODES),
    "rules.*.trigger": Same(),
    "rules.*.message": Text(),
}
"""Every setting's order of strictness (the README's merging table is this one)."""

STRUCTURAL = frozenset({"name", "extends", "loosen", "overrides", "sources", "refs", "origins"})
"""Policy fields that say where settings come from rather than what they check."""

OVERRIDABLE = ("action", "mode", "message")
"""The fields of an inherited rule an extending file may change under ``overrides``."""


def fields_of(pattern: str) -> list[str]:
    """The table's fields directly under ``pattern`` (``""`` is the whole policy).

    Example:
        >>> fields_of("recency")
        ['field', 'max_age_days']
    """
    depth = 0 if not pattern else pattern.count(".") + 1
    prefix = f"{pattern}." if pattern else ""
    return [
        path.rsplit(".", 1)[-1]
        for path in STRICTNESS
        if path and path.startswith(prefix) and path.count(".") == depth
    ]


def names_a_setting(path: str) -> bool:
    """True when ``path`` is a setting of the table, a key of one of its collections, or a
    field under such a key.

    Example:
        >>> [names_a_setting(p) for p in ("mode", "rules.default_cardholder.action",
        ...     "classifiers.builtin.credit_card", "domain.min_similarty")]
        [True, True, True, False]
    """
    parts = path.split(".")
    if not all(parts):
        return False
    pattern = ""
    for position, part in enumerate(parts):
        order = STRICTNESS.get(pattern)
        if isinstance(order, Keyed):
            if order.entry is not None:  # its entries merge whole: nothing below a key
                return position == len(parts) - 1 and bool(part)
            pattern += ".*"
            continue
        pattern = f"{pattern}.{part}" if pattern else part
        if pattern not in STRICTNESS:
            return False
    return True
