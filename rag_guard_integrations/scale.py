"""Corpus tagging on Ray Data: the per-record logic of ``rag-guard tag``, run across a cluster."""

from __future__ import annotations

import functools
import json
import logging
import pickle
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.classify.tagging import metadata_key, tag_batch
from rag_guard_integrations.core.errors import InputError, RagGuardError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.policy.schema import LabelSpec, Policy

INSTALL_HINT = "pip install 'rag-guard-integrations[ray]'"
KINDS = ("pattern", "embedding", "llm")
DEFAULT_BATCH_SIZE = 512
# Ray retries a batch whose worker died (crash, lost node) this often. Bounded: a record that
# kills its worker every time must fail the run, not restart workers forever.
MAX_RETRIES = 3
KEPT, TAGGED, RETRIED = "kept", "tagged", "retried"


class RayEngineError(RagGuardError):
    """Ray could not be started or reached, or a run failed after its retries."""


class RayUnavailableError(RayEngineError, ImportError):
    """The ``ray`` extra is not installed."""


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
            raise ValueError(
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
        from rag_guard_integrations.cli.tag import build_classifier  # noqa: PLC0415 - cycle

        return build_classifier(self.kind, self.model, policy)

    def load_policy(self) -> Policy | None:
        """The policy ``policy`` names, or None."""
        if self.policy is None:
            return None
        from rag_guard_integrations.policy.loader import load_policy  # noqa: PLC0415

        return load_policy(self.policy)


@dataclass(frozen=True)
class _Options:
    text_column: str
    json_column: str | None
    status_column: str | None
    overwrite: bool


def tag_dataset(
    ds: Any,
    classifier_spec: ClassifierSpec,
    *,
    text_column: str = "text",
    json_column: str | None = None,
    status_column: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    concurrency: int | None = None,
) -> Any:
    """Label every record of a Ray Dataset the way ``rag-guard tag`` labels a JSONL file.

    Each row is a record: its metadata (under ``metadata``, else ``meta``) gains
    ``classifications`` and ``findings`` exactly as :func:`~rag_guard_integrations.classify.
    tagging.tag_batch` adds them; records that already carry labels are kept (unless the
    policy says ``classify: always``); no record is dropped. A batch whose classifier call
    raises is classified again one record at a time, so only the records that fail on their
    own get ``unclassified`` (with ``classification_error``). A worker that dies is replaced
    and its batch retried up to ``MAX_RETRIES`` times.

    Args:
        ds: a ``ray.data.Dataset`` of records.
        classifier_spec: how each worker builds its classifier.
        text_column: the record key holding the text.
        json_column: when given, each row holds one whole record as a JSON string in this
            column, and the output does too. Arrow gives every row of a block the same
            columns, filling gaps with nulls; JSON keeps records of differing shape (JSONL
            lines) exactly as they are.
        status_column: when given, a column added to say what happened to each record:
            ``kept`` (already labelled), ``tagged``, or ``retried`` (classified alone after
            its batch failed). Count it with ``ds.groupby(status_column).count()``.
        batch_size: records per classifier call.
        concurrency: size of the actor pool for model-backed classifiers (default: one per
            CPU of the cluster); ignored for the pattern classifier, which runs as tasks.

    Returns:
        The lazily tagged ``ray.data.Dataset``, in the order Ray Data's execution options
        give (set ``DataContext.get_current().execution_options.preserve_order = True`` to
        keep input order).

    Example:
        >>> import ray.data  # doctest: +SKIP
        >>> ds = ray.data.read_parquet("s3://corpus/chunks/")  # doctest: +SKIP
        >>> tagged = tag_dataset(ds, ClassifierSpec("pattern", policy="default"))  # doctest: +SKIP
        >>> tagged.write_parquet("s3://corpus/tagged/")  # doctest: +SKIP
    """
    ray = import_ray()
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r} must be at least 1")
    policy = classifier_spec.load_policy()
    if classifier_spec.factory is None:
        # Built once here so that a bad policy or model name fails on the driver, in one line,
        # before any worker starts (construction loads no model and calls no server).
        classifier_spec.build(policy)
    options = _Options(
        text_column,
        json_column,
        status_column,
        overwrite=policy is not None and policy.classify == "always",
    )
    arguments = {"spec": classifier_spec, "policy": pickle.dumps(policy), "options": options}
    common: dict[str, Any] = {"batch_size": batch_size, "batch_format": "pyarrow"}
    if classifier_spec.stateless:
        return ds.map_batches(_tag_in_task, fn_kwargs=arguments, max_retries=MAX_RETRIES, **common)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return ds.map_batches(
        _TagWorker,
        fn_constructor_kwargs=arguments,
        concurrency=concurrency or max(1, cpus),
        max_restarts=MAX_RETRIES,
        max_task_retries=MAX_RETRIES,
        **common,
    )


def import_ray() -> Any:
    """The ``ray`` module with Ray Data loaded.

    Raises:
        RayUnavailableError: the ``ray`` extra is not installed.
    """
    try:
        import ray  # noqa: PLC0415 - optional extra
        import ray.data  # noqa: PLC0415
    except ImportError:
        raise RayUnavailableError(f"the Ray engine needs Ray Data; run {INSTALL_HINT}") from None
    return ray


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """Ray for the duration of a block: the cluster at ``address``, else a local instance.

    A Ray already initialised in this process is used as it is and left running.

    Raises:
        ValueError: ``num_cpus`` with ``address`` (a cluster has its own CPUs) or below 1.
        RayEngineError: Ray could not be started or the cluster could not be reached.
    """
    ray = import_ray()
    if num_cpus is not None and (address is not None or num_cpus < 1):
        hint = "drop it with --address" if address else "use 1 or more"
        raise ValueError(f"--num-cpus {num_cpus} is for a local Ray instance; {hint}")
    if ray.is_initialized():
        yield ray
        return
    quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address is None:
            ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
        else:
            ray.init(address=address, **quiet)
    except Exception as error:  # Ray raises many kinds here; all mean the same to the user
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise RayEngineError(f"could not start or reach {where}: {first}") from None
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the caller shows its own progress
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    try:
        yield ray
    finally:
        ray.shutdown()


def _tag_in_task(batch: Any, spec: ClassifierSpec, policy: bytes, options: _Options) -> Any:
    return _tag_table(batch, _cached_classifier(spec, policy), options)


@functools.lru_cache(maxsize=8)
def _cached_classifier(spec: ClassifierSpec, policy: bytes) -> Classifier:
    # Ray reuses worker processes across tasks: build the classifier once per process.
    return spec.build(pickle.loads(policy))  # pickled by our own driver


class _TagWorker:
    """One actor of the pool: builds its classifier (loads its model) once, then tags batches."""

    def __init__(self, spec: ClassifierSpec, policy: bytes, options: _Options) -> None:
        self._classifier = spec.build(pickle.loads(policy))
        self._options = options

    def __call__(self, batch: Any) -> Any:
        return _tag_table(batch, self._classifier, self._options)


def _tag_table(batch: Any, classifier: Classifier, options: _Options) -> Any:
    """Tag one Arrow batch: decode its records, label them, encode them in the same form."""
    import pyarrow as pa  # noqa: PLC0415 - part of the ray extra

    records = records_of(batch, options.json_column)
    tagged, statuses = _tag_records(records, classifier, options.text_column, options.overwrite)
    if options.json_column is None:
        out = pa.Table.from_pylist(tagged) if tagged else batch
    else:
        lines = pa.array([json.dumps(r, ensure_ascii=False) for r in tagged], pa.string())
        index = batch.schema.get_field_index(options.json_column)
        out = batch.set_column(index, options.json_column, lines)
    if options.status_column is not None:
        out = out.append_column(options.status_column, pa.array(statuses, pa.string()))
    return out


def records_of(batch: Any, json_column: str | None) -> list[dict[str, Any]]:
    """The records of an Arrow batch: its rows, or the JSON objects in ``json_column``."""
    if json_column is None:
        rows: list[dict[str, Any]] = batch.to_pylist()
        return rows
    if json_column not in batch.column_names:
        raise InputError(f"no column {json_column!r} (columns: {', '.join(batch.column_names)})")
    records = []
    for index, line in enumerate(batch.column(json_column).to_pylist()):
        record = json.loads(line) if isinstance(line, str) else None
        if not isinstance(record, dict):
            raise InputError(f"{json_column}[{index}] is not a JSON object; one record per row")
        records.append(record)
    return records


def _tag_records(
    records: Sequence[dict[str, Any]],
    classifier: Classifier,
    text_column: str = "text",
    overwrite: bool = False,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The tagged records and what happened to each (``kept``, ``tagged`` or ``retried``)."""
    isolating = _OneByOneOnFailure(classifier)
    # tag_batch reads the text under "text": show it the chosen column there.
    views = (
        records if text_column == "text" else [{**r, "text": r.get(text_column)} for r in records]
    )
    out: list[dict[str, Any]] = []
    statuses: list[str] = []
    for record, item in zip(records, tag_batch(views, isolating, overwrite=overwrite), strict=True):
        if item.classification is None:
            out.append(dict(record))
            statuses.append(KEPT)
        else:
            key = metadata_key(record)
            out.append({**record, key: item.record[key]})
            statuses.append(RETRIED if isolating.retried else TAGGED)
    return out, statuses


class _OneByOneOnFailure:
    """A classifier that, when a batch call raises or miscounts, classifies each text alone,
    so one bad record does not cost its whole batch its labels."""

    def __init__(self, classifier: Classifier) -> None:
        self._classifier = classifier
        self.retried = False

    def classify(self, text: str) -> Classification:
        return self.classify_many([text])[0]

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        try:
            found = list(self._classifier.classify_many(texts))
        except Exception:  # each text is tried again alone just below
            found = []
        if len(found) == len(texts):
            return found
        self.retried = True
        return [self._alone(text) for text in texts]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Mapping[str, LabelSpec]) -> _OneByOneOnFailure:
        return _OneByOneOnFailure(self._classifier.bind(vocabulary))

    def _alone(self, text: str) -> Classification:
        # The same reasons, in the same words, as the local engine gives.
        try:
            found = list(self._classifier.classify_many([text]))
        except Exception as error:  # fail closed: the record carries unclassified
            return Classification.failed(f"classifier failed: {type(error).__name__}: {error}")
        if len(found) != 1:
            return Classification.failed(f"classifier returned {len(found)} results for 1 texts")
        return found[0]
