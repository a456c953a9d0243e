"""The YAML policy format (version 1) as pydantic models; unknown keys are errors."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from rag_guard_integrations.core.constraints import MATCH_ALL, Match
from rag_guard_integrations.core.errors import PatternCompileError, PolicyError
from rag_guard_integrations.core.labels import UNCLASSIFIED, clean_label
from rag_guard_integrations.core.patterns import compile_pattern


def _check_regex(pattern: str) -> str:
    try:
        compile_pattern(pattern)
    except PatternCompileError as error:
        raise PolicyError(
            f"is not a pattern RE2 can run ({error}); use RE2 syntax, without lookaround or "
            "backreferences"
        ) from None
    return pattern


Threshold = Annotated[float, Field(ge=-1.0, le=1.0)]
Pattern = Annotated[str, AfterValidator(_check_regex)]
DEFAULT_REFUSAL = (
    "Sorry, I can only answer questions about the documents in this collection, and this "
    "request looks outside that domain. Please rephrase it about a topic the collection covers."
)


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

    def match_of(self, attribute: str) -> Match:
        """How ``attribute``'s values are matched: ``all`` unless the policy says ``any``."""
        return self.match.get(attribute, MATCH_ALL)


class ClauseSpec(_Strict):
    """One clause the clause guard can detect in a query and verify in a chunk."""

    description: str = Field("", description="what the clause is about")
    intents: list[Pattern] = Field(min_length=1, description="regexes detecting it in a query")
    fingerprint: Pattern | list[Pattern] | None = Field(
        None, description="regex the chunk text must match (a list means any of them)"
    )

    @property
    def fingerprint_regex(self) -> str | None:
        """The fingerprint as one regex (list alternatives joined)."""
        if isinstance(self.fingerprint, list):
            return "|".join(f"(?:{p})" for p in self.fingerprint) or None
        return self.fingerprint


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
    refusal: str = Field(DEFAULT_REFUSAL, description="text shown when a query is rejected")


class RecencySpec(_Strict):
    """Deny chunks whose date is older than ``max_age_days``, and chunks with no date."""

    field: str = Field("updated_at", min_length=1, description="metadata key holding the date")
    max_age_days: float = Field(gt=0, description="oldest allowed age, in days")


class LinkingSpec(_Strict):
    """Metadata keys whose shared values link chunks for multi-hop rules."""

    keys: list[str] = Field(default_factory=list)


ValidatorName = Literal["luhn", "iban", "us_ssn", "ipv4"]
"""The validators a pattern recogniser can name (implemented under the same names in
``classify.recognizers.validators``)."""


class PatternSpec(_Strict):
    """A regex recogniser declared in the policy."""

    name: str
    label: str
    regex: Pattern
    validator: ValidatorName | None = None
    context: list[str] = Field(default_factory=list, description="counts only near these words")


class ClassifiersSpec(_Strict):
    """Recognisers for untagged chunks: policy patterns plus built-ins mapped to labels."""

    patterns: list[PatternSpec] = Field(default_factory=list)
    builtin: dict[str, str] = Field(
        default_factory=dict, description="built-in recogniser name -> label in this vocabulary"
    )


class LabelSpec(_Strict):
    """One label of the vocabulary; the description feeds the embedding classifier."""

    description: str = ""
    threshold: Threshold | None = None


class TriggerSpec(_Strict):
    """When a rule fires: all labels present, anywhere in the set or within one linked group."""

    all_present: list[str] = Field(min_length=1)
    scope: Literal["context", "linked"] = "context"

    @field_validator("all_present")
    @classmethod
    def _labels_clean(cls, value: list[str]) -> list[str]:
        cleaned = [clean_label(label) for label in value]
        if blank := [label for label, clean in zip(value, cleaned, strict=True) if not clean]:
            raise PolicyError(
                f"holds the blank label {blank[0]!r}; name a label with letters or digits"
            )
        return list(dict.fromkeys(cleaned))


Mode = Literal["enforce", "shadow"]


class RuleSpec(_Strict):
    """A combination rule."""

    name: str
    action: Literal["block", "warn", "redact"] = Field(
        "block",
        description="block: drop the carriers; warn: record only; redact: mask the carriers' "
        "recogniser spans as [LABEL] (dropped when a label has no span to mask)",
    )
    trigger: TriggerSpec
    message: str = ""
    mode: Mode = Field("enforce", description="shadow: evaluate and record, enforce nothing")


CHECKING_SECTIONS = ("access", "clauses", "domain", "recency", "rules")
"""The sections that make a policy check something (each feeds a guard stage)."""


class Policy(_Strict):
    """A whole policy, after ``extends`` is merged. Build one with :func:`load_policy`."""

    version: Literal[1] = 1
    name: str | None = None
    extends: list[str] = Field(default_factory=list)
    access: AccessSpec = Field(default_factory=AccessSpec)
    clauses: dict[str, ClauseSpec] = Field(default_factory=dict)
    domain: DomainSpec | None = None
    recency: RecencySpec | None = None
    linking: LinkingSpec = Field(default_factory=LinkingSpec)
    classifiers: ClassifiersSpec = Field(default_factory=ClassifiersSpec)
    labels: dict[str, LabelSpec] = Field(default_factory=dict)
    on_unknown_label: Literal["report", "block"] = "report"
    on_block: Literal["drop_chunks", "empty", "raise"] = "drop_chunks"
    classify: Literal["fill_missing", "always", "never"] = Field(
        "fill_missing", description="when the attached classifier labels a chunk"
    )
    recognizers: Literal["always", "with_classify"] = Field(
        "always",
        description="always: the policy's pattern recognisers label every chunk, whatever "
        "labels its metadata claims; with_classify: they follow `classify`",
    )
    no_context_refusal: str = "No authorized matching clause found."
    allow_non_text: bool = Field(
        False,
        description="let nodes with no text (image, audio, video, empty) through; no content "
        "check can judge them",
    )
    on_no_intent: OnNoIntent = Field(
        "refuse",
        description="a query naming no clause: refuse it, or apply the access checks only",
    )
    rules: list[RuleSpec] = Field(default_factory=list)
    mode: Mode = Field("enforce", description="shadow: evaluate and record, enforce nothing")
    sources: tuple[str, ...] = Field(default=(), exclude=True)

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
