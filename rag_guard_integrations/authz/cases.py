"""Decision case files (access as code): expected decisions per principal, query and chunk,
read from YAML, with the access source they run under; pydantic schema, unknown keys refused.

A case file::

    policies: [contracts]                 # built-in names or paths (relative to this file)
    access_source:                        # optional: one engine, files relative to this file
      cedar: {policies: access.cedar, entities: entities.json, resource_key: doc_id}
    cases:
      - name: an MSA reader sees the MSA termination clause
        principal: alice
        access: {contract_type: [MSA]}
        query: What is the termination notice period?
        chunk: {text: "Either party may terminate on thirty days' written notice.",
                meta: {doc_id: msa-1, contract_type: MSA, clause_id: TERMINATION_NOTICE}}
        expect: allow
      - name: several chunks judged together, each with its own expectation
        query: ...
        chunks:
          - {text: ..., meta: {...}, expect: deny, stage: authz}
          - {text: ..., expect: deny, stage: combination, rule: default_cardholder}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rag_guard_integrations.core.access import AccessContext
from rag_guard_integrations.core.errors import DataError, RagGuardError
from rag_guard_integrations.policy.loader import _check_nodes, is_path
from rag_guard_integrations.policy.messages import describe_errors

if TYPE_CHECKING:
    from contextlib import ExitStack

    from rag_guard_integrations.authz.source import AccessSource

Expect = Literal["allow", "deny", "redact"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Expectation(_Strict):
    """What a chunk's decision must be: its outcome and, when given, stage and rule."""

    expect: Expect | None = Field(None, description="allow, deny or redact")
    stage: str | None = Field(None, description="the stage that decides (passed when allowed)")
    rule: str | None = Field(None, description="the combination rule behind it")


class ChunkCase(Expectation):
    """One chunk as a retriever would return it, with its own expectation."""

    text: str
    meta: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    score: float | None = None

    def as_input(self) -> dict[str, Any]:
        """The chunk in the form :meth:`Chunk.from_any` reads."""
        return {"text": self.text, "meta": self.meta, "id": self.id, "score": self.score}


class Case(Expectation):
    """One request: who asks, what, and the chunk(s) retrieved for it."""

    name: str = Field(min_length=1)
    principal: str | None = None
    access: dict[str, list[str] | str] = Field(default_factory=dict)
    query: str
    chunk: ChunkCase | None = None
    chunks: list[ChunkCase] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_form(self) -> Case:
        # DataError is a ValueError: pydantic reports it with the case's key path and line.
        if (self.chunk is None) == (not self.chunks):
            raise DataError("give either chunk (one) or chunks (a list), not both or neither")
        if self.chunks and (self.expect or self.stage or self.rule):
            raise DataError("with chunks, put expect, stage and rule on each chunk")
        if "principal" in self.access:
            raise DataError("principal goes beside access, not inside it")
        return self

    def context(self) -> AccessContext:
        """The case's access context."""
        return AccessContext(self.principal, **self.access)

    def items(self) -> list[ChunkCase]:
        """The chunks of the case, the single chunk carrying the case's expectation."""
        if self.chunk is not None:
            merged = {"expect": self.expect, "stage": self.stage, "rule": self.rule}
            given = {k: v for k, v in merged.items() if v is not None}
            return [self.chunk.model_copy(update=given)]
        return list(self.chunks)


class CedarSpec(_Strict):
    """``CedarAccess`` from a policy file and an entities JSON file."""

    policies: str
    entities: str
    action: str = 'Action::"view"'
    principal_type: str = "User"
    resource_type: str = "Document"
    resource_key: str | None = None


class CasbinSpec(_Strict):
    """``CasbinAccess`` from a model file and a policy CSV file."""

    model: str
    policy: str
    action: str = "read"
    domain: str | None = None
    resources: list[str] | None = None
    resource_key: str | None = None


class SpiceDBSpec(_Strict):
    """``SpiceDBAccess`` over an embedded SpiceDB loaded from a schema and relationships file
    (one ``type:id#relation@type:id[#relation]`` a line)."""

    schema_file: str = Field(alias="schema")
    relationships: str
    resource_type: str = "document"
    permission: str = "view"
    subject_type: str = "user"
    resource_key: str | None = None


class SourceSpec(_Strict):
    """One engine."""

    cedar: CedarSpec | None = None
    casbin: CasbinSpec | None = None
    spicedb: SpiceDBSpec | None = None

    @model_validator(mode="after")
    def _one_engine(self) -> SourceSpec:
        if sum(spec is not None for spec in (self.cedar, self.casbin, self.spicedb)) != 1:
            raise DataError("name exactly one engine: cedar, casbin or spicedb")
        return self


class CaseFile(_Strict):
    """A whole case file."""

    policies: list[str] = Field(default_factory=list)
    access_source: SourceSpec | None = None
    cases: list[Case] = Field(min_length=1)


def load_cases(path: str | Path) -> tuple[CaseFile, Path]:
    """The case file at ``path`` and the folder its relative paths resolve from; a file that
    is missing, not YAML or not of the format is a one-line :class:`DataError`."""
    source = Path(path)
    try:
        text = _text(source)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is None:
            raise DataError(f"{source}: the case file is empty; add policies and cases")
        _check_nodes(root, str(source))
        data = yaml.safe_load(text)
        return CaseFile.model_validate(data), source.resolve().parent
    except OSError as error:
        raise DataError(f"{source}: cannot be read ({error.strerror}); check the path") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise DataError(f"{source}: not valid YAML{line}; fix the syntax") from None
    except ValidationError as error:
        raise DataError(describe_errors(error, str(source), root)[0]) from None
    except RagGuardError as error:
        raise DataError(str(error)) from None


def _text(path: Path) -> str:
    """The UTF-8 text of ``path``; other bytes are a one-line :class:`DataError`."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise DataError(
            f"{path}: not UTF-8 text (byte {error.start} cannot be decoded); save it as UTF-8"
        ) from None


def policy_refs(refs: list[str], base: Path) -> list[str | Path]:
    """Policy references of a case file: paths resolved from its folder, names kept."""
    return [base / ref if is_path(ref) and not Path(ref).is_absolute() else ref for ref in refs]


def open_source(spec: SourceSpec | None, base: Path, stack: ExitStack) -> AccessSource | None:
    """The access source ``spec`` names, built from files relative to ``base``; what must be
    closed (an embedded SpiceDB) is closed with ``stack``."""
    if spec is None:
        return None
    try:
        if spec.cedar is not None:
            from rag_guard_integrations.authz.cedar import CedarAccess  # noqa: PLC0415

            cedar = spec.cedar
            options = cedar.model_dump(exclude={"policies", "entities"})
            entities = _text(base / cedar.entities)
            return CedarAccess(_text(base / cedar.policies), entities, **options)
        if spec.casbin is not None:
            from rag_guard_integrations.authz.casbin import CasbinAccess  # noqa: PLC0415

            casbin = spec.casbin
            options = casbin.model_dump(exclude={"model", "policy"})
            return CasbinAccess.from_files(base / casbin.model, base / casbin.policy, **options)
        assert spec.spicedb is not None
        return _embedded_spicedb(spec.spicedb, base, stack)
    except OSError as error:
        raise DataError(
            f"access_source: {error.filename}: cannot be read; check the path"
        ) from None
    except json.JSONDecodeError as error:
        raise DataError(f"access_source: the entities are not JSON ({error.msg})") from None


def _embedded_spicedb(spec: SpiceDBSpec, base: Path, stack: ExitStack) -> AccessSource:
    from spicedb_embedded import EmbeddedSpiceDB  # noqa: PLC0415

    from rag_guard_integrations.authz.spicedb import SpiceDBAccess, parse_relationship  # noqa: PLC0415

    lines = _text(base / spec.relationships).splitlines()
    relationships = [parse_relationship(line) for line in lines if line.strip()]
    schema = _text(base / spec.schema_file)
    try:
        db = stack.enter_context(EmbeddedSpiceDB.start(schema, relationships))
    except Exception as error:  # the library's errors carry no file or line: name the files
        raise DataError(
            f"access_source: spicedb: {spec.schema_file} and {spec.relationships} do not load "
            f"into an embedded SpiceDB ({type(error).__name__}); check them with zed, and that "
            "SPICEDB_LIBRARY_PATH names libspicedb.so"
        ) from None
    options = spec.model_dump(exclude={"schema_file", "relationships"})
    return SpiceDBAccess.embedded(db, **options)
