"""What each Ray worker runs on a batch: build its classifier from a spec, decode the
batch's records, tag them, encode them again."""

from __future__ import annotations

import functools
import pickle
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.factory import KINDS, build_classifier
from rag_guard_integrations.classify.tagging import metadata_key, tag_batch
from rag_guard_integrations.core.errors import ArgumentError, InputError
from rag_guard_integrations.data.jsonl import json_line, parse_line

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.policy.schema import Policy

KEPT, TAGGED, RETRIED = "kept", "tagged", "retried"


@dataclass(frozen=True)
class ClassifierSpec:
    """What each worker builds its classifier from: small, picklable, the same on every node.

    Args:
        kind: ``pattern`` (stateless tasks), ``embedding`` or ``llm`` (actor pools, so a model
            loads once per worker), exactly as ``rag-guard tag --classifier``.
        policy: built-in policy name or YAML path for recognisers and labels; loaded once on
            the driver, so a path need not exist on the workers.
        model: the Ollama chat model for ``kind="llm"``.
        factory: a picklable zero-argument callable returning a classifier of your own; it
            runs once per actor and ``kind`` only names it.

    Example:
        >>> ClassifierSpec("pattern", policy="default")
        ClassifierSpec(kind='pattern', policy='default', model=None, factory=None)
    """

    kind: str = "pattern"
    policy: str | None = None
    model: str | None = None
    factory: Callable[[], Classifier] | None = None

    def __post_init__(self) -> None:
        if self.factory is None and self.kind not in KINDS:
            raise ArgumentError(
                f"classifier kind {self.kind!r} is unknown; use one of {', '.join(KINDS)} "
                "or pass factory="
            )

    @property
    def stateless(self) -> bool:
        """True when batches can run as plain tasks (nothing worth loading once per worker)."""
        return self.kind == "pattern" and self.factory is None

    def build(self, policy: Policy | None) -> Classifier:
        """The classifier, built as ``rag-guard tag`` builds it (so both label alike)."""
        if self.factory is not None:
            return self.factory()
        return build_classifier(self.kind, self.model, policy)

    def check(self) -> Policy | None:
        """Load the policy and build the classifier once, so that a bad policy or model name
        fails on the driver, in one line, before any worker starts (building loads no model
        and calls no server). A ``factory`` is left for the workers to run.

        Returns:
            The policy ``policy`` names, or None.
        """
        policy = None
        if self.policy is not None:
            from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

            policy = load_policy(self.policy)
        if self.factory is None:
            self.build(policy)
        return policy


@dataclass(frozen=True)
class BatchOptions:
    """How batches are read and tagged: the same for every batch of one run."""

    text_column: str
    json_column: str | None
    status_column: str | None
    overwrite: bool


def tag_in_task(batch: Any, spec: ClassifierSpec, policy: bytes, options: BatchOptions) -> Any:
    """Tag one batch in a stateless task (the pattern classifier: nothing to load)."""
    return tag_table(batch, _cached_classifier(spec, policy), options)


@functools.lru_cache(maxsize=8)
def _cached_classifier(spec: ClassifierSpec, policy: bytes) -> Classifier:
    # Ray reuses worker processes across tasks: build the classifier once per process.
    return spec.build(pickle.loads(policy))  # pickled by our own driver


class TagWorker:
    """One actor of the pool: builds its classifier (loads its model) once, then tags batches."""

    def __init__(self, spec: ClassifierSpec, policy: bytes, options: BatchOptions) -> None:
        self._classifier = spec.build(pickle.loads(policy))
        self._options = options

    def __call__(self, batch: Any) -> Any:
        return tag_table(batch, self._classifier, self._options)


def tag_table(batch: Any, classifier: Classifier, options: BatchOptions) -> Any:
    """Tag one Arrow batch: decode its records, label them, encode them in the same form."""
    import pyarrow as pa  # noqa: PLC0415 - part of the ray extra

    records = records_of(batch, options.json_column)
    tagged, statuses = _tag_records(records, classifier, options.text_column, options.overwrite)
    if options.json_column is None:
        out = table_of(tagged) if tagged else batch
    else:
        lines = pa.array([json_line(r) for r in tagged], pa.string())
        index = batch.schema.get_field_index(options.json_column)
        out = batch.set_column(index, options.json_column, lines)
    if options.status_column is not None:
        out = out.append_column(options.status_column, pa.array(statuses, pa.string()))
    return out


def table_of(records: Sequence[Mapping[str, Any]]) -> Any:
    """An Arrow table of ``records`` with the columns of all of them (``Table.from_pylist``
    would take the first record's keys alone and silently lose the others)."""
    import pyarrow as pa  # noqa: PLC0415

    if not records:
        return pa.table({})
    return pa.Table.from_struct_array(pa.array(records))


def records_of(batch: Any, json_column: str | None) -> list[dict[str, Any]]:
    """The records of an Arrow batch: its rows, or the JSON objects in ``json_column``."""
    if json_column is None:
        rows: list[dict[str, Any]] = batch.to_pylist()
        return rows
    if json_column not in batch.column_names:
        raise InputError(f"no column {json_column!r} (columns: {', '.join(batch.column_names)})")
    where = f"column {json_column}"
    return [
        parse_line(line if isinstance(line, str) else "null", where, number)
        for number, line in enumerate(batch.column(json_column).to_pylist(), start=1)
    ]


def _tag_records(
    records: Sequence[dict[str, Any]],
    classifier: Classifier,
    text_column: str = "text",
    overwrite: bool = False,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The tagged records and what happened to each (``kept``, ``tagged`` or ``retried``)."""
    # tag_batch reads the text under "text": show it the chosen column there.
    views = (
        records if text_column == "text" else [{**r, "text": r.get(text_column)} for r in records]
    )
    out: list[dict[str, Any]] = []
    statuses: list[str] = []
    for record, item in zip(
        records, tag_batch(views, classifier, overwrite=overwrite), strict=True
    ):
        if item.classification is None:
            out.append(dict(record))
            statuses.append(KEPT)
        else:
            key = metadata_key(record)
            out.append({**record, key: item.record[key]})
            statuses.append(RETRIED if item.retried else TAGGED)
    return out, statuses
