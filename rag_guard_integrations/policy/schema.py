"""The YAML policy format (version 1) as pydantic models; unknown keys are errors."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from rag_guard_integrations.core.constraints import MATCH_ALL, Match
from rag_guard_integrations.core.errors import PatternCompileError, PolicyError
from rag_guard_integrations.core.labels import PLACEHOLDERS, UNCLASSIFIED, clean_label
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.data.clause_examples import load_examples
from rag_guard_integrations.policy.strictness import OVERRIDABLE, names_a_setting


def _check_regex(pattern: str) -> str:
    try:
        compile_pattern(pattern)
    except PatternCompileError as error:
        raise PolicyError(
            f"is not a pattern RE2 can run ({error}); use RE2 syntax, without lookaround or "
            "backreferences"
        ) from None
    return pattern


NO_CONTEXT_REFUSAL = "No authorized matching clause found."
"""The refusal of a policy that names none of its own (the ``contracts`` pack's wording)."""
DOMAIN_REFUSAL = (
    "Sorry, I can only answer questions about the documents in this collection, and this "
    "request looks outside that domain. Please rephrase it about a topic the collection covers."
)


Threshold = Annotated[float, Field(ge=-1.0, le=1.0)]
Pattern = Annotated[str, AfterValidator(_check_regex)]


OnNoIntent = Literal["refuse", "access_only"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AccessSpec(_Strict):
    """Metadata attributes whose values are checked against the caller's AccessContext."""

    attributes: list[str] = Field(default_factory=list, description="access-controlled keys")
    match: dict[str, Match] = Field(
        default_factory=dict,
        description="per attribute: all (default; every value the chunk carries must be "
        "allowed) or any (one allowed value suffices, e.g. a document shared with groups)",
    )

    @model_validator(mode="after")
    def _match_names_attributes(self) -> AccessSpec:
        for name in self.match:
            if name not in self.attributes:
                raise PolicyError(
                    f"match names {name!r}, which is not in access.attributes; list it there too"
                )
        return self

    mentions: dict[str, dict[str, list[Pattern]]] = Field(
        default_factory=dict,
        description="per attribute: value -> regexes that name it in a question ('\\bsows?\\b' "
        "for SOW); the clause guard answers from the named values only, and refuses a question "
        "that names one the caller may not see",
    )

    @model_validator(mode="after")
    def _mentions_name_attributes(self) -> AccessSpec:
        for name in self.mentions:
            if name not in self.attributes:
                raise PolicyError(
                    f"mentions names {name!r}, which is not in access.attributes; list it there"
                )
        return self

    def match_of(self, attribute: str) -> Match:
        """How ``attribute``'s values are matched: ``all`` unless the policy says ``any``."""
        return self.match.get(attribute, MATCH_ALL)


def _fingerprint_form(value: object) -> str:
    """Which form a fingerprint is written in, so that only that form's errors are reported.
    The tags start with ``function-`` because error messages leave such steps out of the key
    path, as they do pydantic's own validator steps."""
    if isinstance(value, dict | FingerprintSpec):
        return "function-spec"
    return _regex_form(value)


def _regex_form(value: object) -> str:
    return "function-list" if isinstance(value, list) else "function-regex"


Regexes = Annotated[
    Annotated[Pattern, Tag("function-regex")] | Annotated[list[Pattern], Tag("function-list")],
    Discriminator(_regex_form),
]


class SemanticSpec(_Strict):
    """The semantic half of a clause fingerprint: how likely the chunk's most clause-like
    passage is this clause, by a classifier over MiniLM embeddings trained on example sentences
    (:mod:`rag_guard_integrations.guards.clause_semantic`)."""

    examples: str = Field(
        "contracts",
        description="the example sentences: the bundled set 'contracts', or a path to a YAML "
        "file of the same form",
    )
    label: str | None = Field(None, description="the clause's label there (default: clause id)")
    min_score: float = Field(
        0.5,
        gt=0.0,
        lt=1.0,
        description="the probability a passage must reach (set by rag-guard calibrate --clauses)",
    )

    @model_validator(mode="after")
    def _examples_readable(self) -> SemanticSpec:
        load_examples(self.examples)  # a missing or malformed file fails at load time
        return self


class FingerprintSpec(_Strict):
    """A clause fingerprint with a regex, a semantic signal, or both, and how they combine."""

    regex: Regexes | None = Field(
        None, description="regex the chunk text must match (a list means any of them)"
    )
    semantic: SemanticSpec | None = None
    combine: Literal["either", "both"] = Field(
        "either",
        description="either: the regex accepts, and the semantic signal judges what it misses; "
        "both: the semantic signal must confirm the regex's matches",
    )

    @model_validator(mode="after")
    def _has_a_signal(self) -> FingerprintSpec:
        if self.regex is None and self.semantic is None:
            raise PolicyError("names neither regex nor semantic; give at least one")
        return self


Fingerprint = Annotated[
    Annotated[Pattern, Tag("function-regex")]
    | Annotated[list[Pattern], Tag("function-list")]
    | Annotated[FingerprintSpec, Tag("function-spec")],
    Discriminator(_fingerprint_form),
]


class ClauseSpec(_Strict):
    """One clause the clause guard can detect in a query and verify in a chunk."""

    description: str = Field("", description="what the clause is about")
    intents: list[Pattern] = Field(min_length=1, description="regexes detecting it in a query")
    broad_intents: list[Pattern] = Field(
        default_factory=list,
        description="regexes that name it only when no clause's intents match the question "
        "(a question about termination in general asks for every termination clause)",
    )
    whole_contract: bool = Field(
        False,
        description="a question about a whole contract (a summary): chunks of every clause "
        "pass on the access checks alone; it yields to any clause the question names",
    )
    fingerprint: Fingerprint | None = Field(
        None,
        description="a regex (a list means any of them) the chunk text must match, or "
        "{regex, semantic, combine}",
    )

    @model_validator(mode="after")
    def _whole_contract_has_no_fingerprint(self) -> ClauseSpec:
        if self.whole_contract and self.fingerprint is not None:
            raise PolicyError("whole_contract accepts every clause; drop its fingerprint")
        return self

    @property
    def fingerprint_regex(self) -> str | None:
        """The fingerprint's regex as one pattern (list alternatives joined), or None."""
        spec = self.fingerprint
        regex = spec.regex if isinstance(spec, FingerprintSpec) else spec
        if isinstance(regex, list):
            return "|".join(f"(?:{p})" for p in regex) or None
        return regex

    @property
    def semantic(self) -> SemanticSpec | None:
        """The fingerprint's semantic signal, or None."""
        return self.fingerprint.semantic if isinstance(self.fingerprint, FingerprintSpec) else None

    @property
    def combine(self) -> Literal["either", "both"]:
        """How regex and semantic signal combine (``either`` for a plain regex)."""
        spec = self.fingerprint
        return spec.combine if isinstance(spec, FingerprintSpec) else "either"


class KindSpec(_Strict):
    """Prototype questions: the kinds the collection answers and everyday ones (see
    :mod:`rag_guard_integrations.guards.domain_kinds`)."""

    in_domain: list[str] = Field(
        min_length=1, description="questions the collection answers, the product as placeholder"
    )
    everyday: list[str] = Field(
        min_length=1, description="everyday questions that may name the same products"
    )
    placeholder: str = Field(
        "product", min_length=1, description="word that replaces the query's product terms"
    )
    min_margin: Threshold = Field(0.10, description="in-domain over everyday: the kind tier")
    min_similarity: Threshold = Field(0.35, description="similarity floor of the kind tier")
    everyday_margin: Threshold = Field(
        0.20, description="everyday over in-domain: the dense tier does not accept"
    )


class DomainSpec(_Strict):
    """The tiered out-of-domain query filter."""

    blocklist: list[str] = Field(default_factory=list, description="out-of-domain terms: reject")
    identifier_pattern: Pattern | None = Field(
        None, description="regex whose group 1 is a standard identifier (tier 2)"
    )
    identifier_keys: list[str] = Field(
        default_factory=lambda: ["standard", "id"], description="chunk metadata holding identifiers"
    )
    identifier_word_prefixes: list[str] = Field(
        default_factory=list,
        description="identifier prefixes that are also ordinary words (the English 'is'): they "
        "count only joined to the number, in capitals, or after a preposition",
    )
    roots: list[str] = Field(default_factory=list, description="domain roots (tier 3)")
    root_context: list[str] = Field(
        default_factory=list, description="regulatory words a root must stand next to"
    )
    root_window: int = Field(4, ge=1, le=50, description="words either side searched for context")
    root_typos: bool = Field(
        False,
        description="a word one edit from a root, that is no English word, counts as the root",
    )
    signature_terms: list[str] = Field(
        default_factory=list, description="terms only this domain uses: tier 3 with no context"
    )
    root_min_similarity: Threshold = Field(0.20, description="similarity floor for tier 3")
    min_similarity: Threshold = Field(0.45, description="dense threshold (tier 4)")
    kinds: KindSpec | None = Field(
        None, description="question-kind prototypes: the kind tier and the everyday veto"
    )
    retriever_scores: Literal["embed", "cosine"] = Field(
        "embed",
        description="cosine: the retriever's scores are cosine similarities, used as the "
        "similarity when every chunk has one in [-1, 1]; embed: the guard embeds query and chunks",
    )
    refusal: str = Field(
        DOMAIN_REFUSAL, min_length=1, description="text shown when a query is rejected"
    )


class RecencySpec(_Strict):
    """Deny chunks whose date is older than ``max_age_days``, and chunks with no date."""

    field: str = Field("updated_at", min_length=1, description="metadata key holding the date")
    max_age_days: float = Field(gt=0, description="oldest allowed age, in days")


class AclFreshnessSpec(_Strict):
    """How old an ACL copied into chunk metadata at ingestion may be: without a live access
    source the guard denies older and undated copies; with one, the ages are only recorded."""

    field: str = Field(
        "acl_synced_at", min_length=1, description="metadata key holding when the ACL was copied"
    )
    max_age_days: float = Field(gt=0, description="oldest allowed copy, in days")


class LinkingSpec(_Strict):
    """Metadata keys whose shared values link chunks for multi-hop rules."""

    keys: list[str] = Field(
        default_factory=list, description="metadata keys whose shared values link chunks"
    )


ValidatorName = Literal["luhn", "iban", "us_ssn", "ipv4", "secret_value"]
"""The validators a pattern recogniser can name (implemented under the same names in
``classify.recognizers.validators``)."""


BUILTIN_RECOGNIZER_NAMES = (
    "email", "phone", "credit_card", "iban", "us_ssn", "us_itin", "national_insurance_number",
    "passport_number", "ip_address", "money",
    "financial_figure", "date_of_birth", "icd10", "diagnosis", "medical_record_number",
    "account_number", "person", "organization", "company_number",
)  # fmt: skip
"""The built-in recognisers ``classifiers.builtin`` can name, in running order (implemented
under the same names in ``classify.recognizers``, which builds them in this order)."""


class PatternSpec(_Strict):
    """A regex recogniser declared in the policy."""

    name: str = Field(description="the recogniser's name (findings and redactions carry it)")
    label: str = Field(description="the label a match gives the chunk")
    regex: Pattern = Field(
        description="RE2 pattern, matched on the normalised text (lower case, accents dropped; "
        "its own letters beyond ASCII are folded the same way)"
    )
    validator: ValidatorName | None = Field(
        None,
        description="a check a match must pass (luhn, iban, us_ssn, ipv4; secret_value: a key's "
        "value that is no reference to a secret kept elsewhere)",
    )
    context: list[str] = Field(default_factory=list, description="counts only near these words")


class ClassifiersSpec(_Strict):
    """Recognisers for untagged chunks (policy patterns plus built-ins mapped to labels), and
    how a named-entity model's entity types map to labels."""

    patterns: list[PatternSpec] = Field(
        default_factory=list, description="regex recognisers declared in the policy"
    )
    builtin: dict[str, str] = Field(
        default_factory=dict, description="built-in recogniser name -> label in this vocabulary"
    )
    ner: dict[str, str] = Field(
        default_factory=dict,
        description="entity type of a named-entity model (spaCy `ent.label_`, Hugging Face "
        "`entity_group`) -> label in this vocabulary, for NERClassifier",
    )


class LabelSpec(_Strict):
    """One label of the vocabulary; the description feeds the embedding classifier."""

    description: str = Field("", description="what the label means, for the classifiers")
    threshold: Threshold | None = Field(
        None,
        description="similarity the embedding classifier needs for this label (unset: the "
        "classifier's own threshold)",
    )


class TriggerSpec(_Strict):
    """When a rule fires: all labels present, anywhere in the set or within one linked group."""

    all_present: list[str] = Field(
        min_length=1, description="the labels that must all be present for the rule to fire"
    )
    scope: Literal["context", "linked"] = Field(
        "context",
        description="context: anywhere in the retrieved set; linked: within one group of "
        "chunks linked by linking.keys",
    )

    @field_validator("all_present")
    @classmethod
    def _labels_clean(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(map(_usable_label, value)))


def _usable_label(name: str) -> str:
    """``name`` cleaned as metadata labels are; a blank one, or one that metadata reads as no
    label (``unknown``, ``none``, ``n/a``: a rule on it would never fire), is refused."""
    label = clean_label(name)
    if not label:
        raise PolicyError(f"holds the blank label {name!r}; name a label with letters or digits")
    if label in PLACEHOLDERS:
        raise PolicyError(
            f"names the label {label!r}, which chunk metadata reads as no label "
            f"({', '.join(sorted(PLACEHOLDERS))}); name it otherwise, e.g. 'unreviewed'"
        )
    return label


Mode = Literal["enforce", "shadow"]
RuleAction = Literal["block", "warn", "redact"]


class RuleSpec(_Strict):
    """A combination rule."""

    name: str = Field(description="unique across every merged policy")
    action: RuleAction = Field(
        "block",
        description="block: drop the carriers; warn: record only; redact: mask the carriers' "
        "recogniser spans as [LABEL] (dropped when a label has no span to mask)",
    )
    trigger: TriggerSpec = Field(description="when the rule fires")
    message: str = Field("", description="why the rule withholds, shown in decisions")
    mode: Mode = Field("enforce", description="shadow: evaluate and record, enforce nothing")


class RuleOverride(_Strict):
    """Changes an extending policy makes to a rule it inherits, found by the rule's name.

    A change that weakens the rule (``block`` -> ``redact`` -> ``warn``, or ``mode: shadow``)
    needs the rule in the file's ``loosen`` list (``rules.NAME``).

    Example:
        >>> RuleOverride(action="redact").action
        'redact'
    """

    action: RuleAction | None = Field(None, description="the rule's new action")
    mode: Mode | None = Field(None, description="the rule's new mode")
    message: str | None = Field(None, description="the rule's new message")


class OverridesSpec(_Strict):
    """What an extending policy changes in the policies it extends, by name."""

    rules: dict[str, RuleOverride] = Field(
        default_factory=dict,
        description=f"inherited rule name -> the fields to change ({', '.join(OVERRIDABLE)})",
    )


def _check_loosen(paths: list[str]) -> list[str]:
    for path in paths:
        if not names_a_setting(path):
            raise PolicyError(
                f"names {path!r}, which is no setting; use a key path such as mode, "
                "domain.min_similarity or rules.NAME"
            )
    return list(dict.fromkeys(paths))


CHECKING_SECTIONS = ("access", "clauses", "domain", "recency", "acl_freshness", "rules")
"""The sections that make a policy check something (each feeds a guard stage)."""


class Policy(_Strict):
    """A whole policy, after ``extends`` is merged. Build one with :func:`load_policy`.

    Merging tightens (see :mod:`rag_guard_integrations.policy.strictness` for the order of
    every setting): policies loaded beside each other keep the stricter value of each setting,
    or fail to load naming the setting and both policies; a file that ``extends`` others may
    relax a setting only by listing it under ``loosen``, and changes an inherited rule by name
    under ``overrides``.

    Example:
        >>> from rag_guard_integrations import load_policy, parse_policy
        >>> load_policy("contracts").on_no_intent
        'refuse'
        >>> trial = parse_policy(
        ...     "extends: [default]\\nloosen: [rules.default_cardholder]\\n"
        ...     "overrides: {rules: {default_cardholder: {action: redact}}}\\n")
        >>> next(r.action for r in trial.rules if r.name == "default_cardholder")
        'redact'
    """

    version: Literal[1] = Field(1, description="the policy format's version")
    name: str | None = Field(None, description="the policy's name (audit records carry it)")
    extends: list[str] = Field(
        default_factory=list,
        description="built-in names or paths (relative to this file) this policy refines",
    )
    loosen: Annotated[list[str], AfterValidator(_check_loosen)] = Field(
        default_factory=list,
        description="settings this file relaxes on purpose in what it extends (key paths: "
        "mode, domain.min_similarity, rules.NAME, classifiers.builtin.NAME...); a looser value "
        "not listed here fails the load. After loading: every setting relaxed on the way",
    )
    overrides: OverridesSpec = Field(
        default_factory=OverridesSpec,
        description="changes to inherited rules by name; applied while loading",
    )
    access: AccessSpec = Field(default_factory=AccessSpec, description="access-controlled keys")
    clauses: dict[str, ClauseSpec] = Field(
        default_factory=dict, description="clause id -> how to detect and verify it"
    )
    domain: DomainSpec | None = Field(None, description="the out-of-domain query filter")
    recency: RecencySpec | None = Field(None, description="deny chunks older than this")
    acl_freshness: AclFreshnessSpec | None = Field(
        None,
        description="without a live access source: deny chunks whose copied ACL is older than this",
    )
    linking: LinkingSpec = Field(default_factory=LinkingSpec, description="multi-hop links")
    classifiers: ClassifiersSpec = Field(
        default_factory=ClassifiersSpec, description="recognisers for untagged chunks"
    )
    labels: dict[str, LabelSpec] = Field(default_factory=dict, description="the vocabulary")
    on_unknown_label: Literal["report", "block"] = Field(
        "report",
        description="a metadata label outside the vocabulary (the declared labels, the rules' "
        "labels and unclassified): record it, or deny",
    )
    on_block: Literal["drop_chunks", "empty", "raise"] = Field(
        "drop_chunks",
        description="when a block rule fires: drop its carriers, withhold the whole set, or "
        "raise ContextBlocked",
    )
    classify: Literal["fill_missing", "always", "never"] = Field(
        "fill_missing", description="when the attached classifier labels a chunk"
    )
    recognizers: Literal["always", "with_classify"] = Field(
        "always",
        description="always: the policy's pattern recognisers label every chunk, whatever "
        "labels its metadata claims; with_classify: they follow `classify`",
    )
    no_context_refusal: str = Field(
        NO_CONTEXT_REFUSAL,
        min_length=1,
        description="text shown instead of an answer when the guards leave no chunk (or "
        "nothing could pass); each built-in pack words its own",
    )
    allow_non_text: bool = Field(
        False,
        description="let nodes with no text (image, audio, video, empty) through; no content "
        "check can judge them",
    )
    on_no_intent: OnNoIntent = Field(
        "refuse",
        description="a query naming no clause: refuse it, or apply the access checks only",
    )
    rules: list[RuleSpec] = Field(default_factory=list, description="combination rules")
    mode: Mode = Field("enforce", description="shadow: evaluate and record, enforce nothing")
    sources: tuple[str, ...] = Field(
        default=(), exclude=True, description="every file merged, in order (set by loading)"
    )
    refs: tuple[str, ...] = Field(
        default=(),
        exclude=True,
        description="the built-in names and paths it was loaded from: load them again to "
        "rebuild it (set by loading)",
    )
    origins: dict[str, str] = Field(
        default_factory=dict,
        exclude=True,
        description="rules.NAME or clauses.ID -> the file defining it, so that one definition "
        "reached twice (a shared extends) merges as one (set by loading)",
    )

    @field_validator("labels")
    @classmethod
    def _labels_distinct(cls, value: dict[str, LabelSpec]) -> dict[str, LabelSpec]:
        seen: dict[str, str] = {}
        for name in value:
            label = _usable_label(name)
            if label in seen:
                raise PolicyError(
                    f"declares {seen[label]!r} and {name!r}, one label once case and spacing "
                    "are folded; keep one declaration"
                )
            seen[label] = name
        return value

    @model_validator(mode="after")
    def _unique_rule_names(self) -> Policy:
        seen: set[str] = set()
        for index, rule in enumerate(self.rules):
            if rule.name in seen:
                raise PolicyError(f"rules[{index}].name {rule.name!r} is defined twice; rename one")
            seen.add(rule.name)
        return self

    @property
    def vocabulary(self) -> dict[str, LabelSpec]:
        """Every label the policy knows: declared ones, rule labels and ``unclassified``."""
        vocab = {clean_label(name): spec for name, spec in self.labels.items()}
        for rule in self.rules:
            for label in rule.trigger.all_present:
                vocab.setdefault(label, LabelSpec())
        vocab.setdefault(UNCLASSIFIED, LabelSpec(description="could not be classified"))
        return vocab

    @property
    def declares_vocabulary(self) -> bool:
        """True when the policy lists its labels (then metadata labels outside it are unknown)."""
        return bool(self.labels)

    @property
    def checks_vocabulary(self) -> bool:
        """True when metadata labels outside :attr:`vocabulary` are looked for: the policy
        lists its labels, or blocks unknown ones (then its rules' labels are the vocabulary)."""
        return self.declares_vocabulary or self.on_unknown_label == "block"
