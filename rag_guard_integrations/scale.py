"""Corpus tagging on Ray Data: the per-record logic of ``rag-guard tag``, run across a cluster."""

from __future__ import annotations

import logging
import pickle
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.errors import (
    ArgumentError,
    RayEngineError,
    RayUnavailableError,
)
from rag_guard_integrations.scale_worker import (
    KEPT,
    RETRIED,
    TAGGED,
    BatchOptions,
    ClassifierSpec,
    TagWorker,
    tag_in_task,
)

if TYPE_CHECKING:
    from collections.abc import Iterator


INSTALL_HINT = "pip install 'rag-guard-integrations[ray]'"
__all__ = [
    "KEPT",
    "RETRIED",
    "TAGGED",
    "ClassifierSpec",
    "RayEngineError",
    "RayUnavailableError",
    "ray_session",
    "tag_dataset",
]
DEFAULT_BATCH_SIZE = 2048  # records per task: Ray adds a few ms to each, so not fewer
# Ray retries a batch whose worker died (crash, lost node) this often. Bounded: a record that
# kills its worker every time must fail the run, not restart workers forever.
MAX_RETRIES = 3


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
        The lazily tagged ``ray.data.Dataset``. Its order is the one Ray Data's execution
        options give: set ``ds.context.execution_options.preserve_order = True`` on the input
        to keep input order.

    Example:
        >>> import ray.data  # doctest: +SKIP
        >>> ds = ray.data.read_parquet("s3://corpus/chunks/")  # doctest: +SKIP
        >>> tagged = tag_dataset(ds, ClassifierSpec("pattern", policy="default"))  # doctest: +SKIP
        >>> tagged.write_parquet("s3://corpus/tagged/")  # doctest: +SKIP
    """
    ray = import_ray()
    if batch_size < 1:
        raise ArgumentError(f"batch_size={batch_size!r} must be at least 1")
    policy = classifier_spec.check()
    options = BatchOptions(
        text_column,
        json_column,
        status_column,
        overwrite=policy is not None and policy.classify == "always",
    )
    arguments = {"spec": classifier_spec, "policy": pickle.dumps(policy), "options": options}
    with warnings.catch_warnings():
        # Ray 2.60 deprecates remote args such as max_retries without a named replacement yet.
        warnings.filterwarnings("ignore", "`ray_remote_args` is deprecated", DeprecationWarning)
        if classifier_spec.stateless:
            return ds.map_batches(
                tag_in_task,
                fn_kwargs=arguments,
                batch_size=batch_size,
                batch_format="pyarrow",
                max_retries=MAX_RETRIES,
            )
        size = concurrency or max(1, int(ray.cluster_resources().get("CPU", 1)))
        return ds.map_batches(
            TagWorker,
            fn_constructor_kwargs=arguments,
            batch_size=batch_size,
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(size=size),
            max_restarts=MAX_RETRIES,
            max_task_retries=MAX_RETRIES,
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
        hint = "drop it when address= is given" if address else "use 1 or more"
        raise ArgumentError(f"num_cpus={num_cpus!r} is for a local Ray instance; {hint}")
    if ray.is_initialized():
        yield ray
        return
    quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
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
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    try:
        yield ray
    finally:
        ray.shutdown()
