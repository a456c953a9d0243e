"""The unit the guards judge: a retrieved chunk of text with its metadata, score and id."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.errors import ChunkError

_EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True, slots=True, eq=False)
class Chunk:
    """A retrieved chunk. Frozen; compared by identity, since equal texts are distinct chunks.

    Example:
        >>> chunk = Chunk("Either party may terminate ...", {"contract_type": "MSA"}, score=0.71)
        >>> Chunk.from_any({"page_content": "text", "metadata": {"clause_id": "RENEWAL"}}).text
        'text'
    """

    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    score: float | None = None
    id: str | None = None

    @classmethod
    def from_any(cls, item: object, *, position: int | None = None) -> Chunk:
        """Build a chunk from a dict or any object that follows one of the protocols below.

        Accepts a Chunk; a ``{"text", "meta"}`` or ``{"page_content", "metadata"}`` dict
        (``score`` and ``id`` optional); a :class:`ScoredLike` hit; a :class:`NodeLike`; a
        :class:`DocumentLike`. The protocols are shapes, so no framework is imported; each
        framework's own objects fit one of them. Raises :class:`ChunkError` naming what is wrong.
        """
        where = f"chunk {position}" if position is not None else "chunk"
        if isinstance(item, Chunk):
            return item
        if isinstance(item, Mapping):
            return _from_mapping(item, where)
        shape = _shape(item)
        if shape is ScoredLike:
            inner = cls.from_any(item.node, position=position)  # type: ignore[attr-defined]
            score = _score(item.score, where)  # type: ignore[attr-defined]
            return cls(inner.text, inner.metadata, score, inner.id)
        if shape is NodeLike:
            metadata, node_id = item.metadata, item.node_id  # type: ignore[attr-defined]
            return _build(where, getattr(item, "text", ""), metadata, None, node_id)
        if shape is DocumentLike:
            return _build(
                where,
                item.page_content,  # type: ignore[attr-defined]
                getattr(item, "metadata", None),
                None,
                getattr(item, "id", None),
            )
        if item is None:
            raise ChunkError(f"{where} is None; pass a dict with 'text', a Document or a node")
        raise ChunkError(
            f"{where} is {a_type(item)}; pass a dict with 'text' (or 'page_content'), "
            "a document (page_content, metadata), a node (node_id, text, metadata) or a Chunk"
        )


@runtime_checkable
class DocumentLike(Protocol):
    """A document :meth:`Chunk.from_any` reads: ``page_content``, and ``metadata`` and ``id``
    when it has them (LangChain's ``Document`` is one)."""

    page_content: str


@runtime_checkable
class NodeLike(Protocol):
    """A node :meth:`Chunk.from_any` reads: ``node_id``, ``metadata`` and, when it has one,
    ``text`` (LlamaIndex's ``TextNode`` is one)."""

    node_id: str
    metadata: Mapping[str, Any]


@runtime_checkable
class ScoredLike(Protocol):
    """A retrieval hit :meth:`Chunk.from_any` reads: a ``node`` (a node or a document) and its
    ``score`` (LlamaIndex's ``NodeWithScore`` is one)."""

    node: object
    score: float | None


def _shape(item: object) -> type | None:
    """The protocol ``item`` follows (:class:`ScoredLike`, then :class:`NodeLike`, then
    :class:`DocumentLike`), or None. A protocol check costs microseconds (and a probe of a
    pydantic model for an attribute it lacks about two), so the answer is kept for a type whose
    attributes its class declares (a pydantic model, a dataclass, slots only): every instance
    of it has the same ones."""
    kind = type(item)
    if kind in _SHAPES:
        return _SHAPES[kind]
    # Scored hits and nodes first: attribute probes on pydantic models are slow when they miss.
    shape = next((p for p in (ScoredLike, NodeLike, DocumentLike) if isinstance(item, p)), None)
    if _declared(kind) and len(_SHAPES) < _MAX_SHAPES:
        _SHAPES[kind] = shape
    return shape


def _declared(kind: type) -> bool:
    """Whether every instance of ``kind`` has the attributes its class declares, and no other:
    a pydantic model that allows no extra fields, or a class of slots alone with no
    ``__getattr__``."""
    config = getattr(kind, "model_config", None)
    if isinstance(getattr(kind, "model_fields", None), dict) and isinstance(config, dict):
        return config.get("extra") != "allow"
    bases = kind.__mro__[:-1]  # object last
    return not any("__dict__" in vars(base) or "__getattr__" in vars(base) for base in bases)


_SHAPES: dict[type, type | None] = {}
_MAX_SHAPES = 256

_MAPPING_KEYS = frozenset({"text", "page_content", "meta", "metadata", "score", "id"})
TEXT_KEYS = ("text", "page_content")
METADATA_KEYS = ("meta", "metadata")


def record_keys(item: Mapping[str, Any], where: str = "chunk") -> tuple[str, str]:
    """The keys of a chunk dict that hold its text and its metadata: ``text`` or
    ``page_content``, and ``meta`` or ``metadata`` (``metadata`` when there is none yet).

    Example:
        >>> record_keys({"page_content": "x", "meta": {}})
        ('page_content', 'meta')

    Raises:
        ChunkError: both keys of a pair are present: the guard would judge one copy while the
            other may reach the LLM.
    """
    text_key = _only(item, TEXT_KEYS, where) or "text"
    metadata_key = _only(item, METADATA_KEYS, where) or "metadata"
    return text_key, metadata_key


def _only(item: Mapping[str, Any], keys: tuple[str, str], where: str) -> str | None:
    present = [key for key in keys if key in item]
    if len(present) > 1:
        raise ChunkError(
            f"{where} has both {present[0]!r} and {present[1]!r}; keep one, the guard would "
            "check one copy while the other may reach the LLM"
        )
    return present[0] if present else None


def _from_mapping(item: Mapping[str, Any], where: str) -> Chunk:
    text_key, metadata_key = record_keys(item, where)
    if text_key not in item and (extra := set(item) - _MAPPING_KEYS):
        # Content under another key would pass unchecked to whoever maps results back.
        raise ChunkError(
            f"{where} has no 'text' or 'page_content' but has {sorted(map(str, extra))}; "
            "put the chunk text under 'text'"
        )
    text = item.get(text_key, "")
    metadata = item.get(metadata_key)
    return _build(where, text, metadata, _score(item.get("score"), where), item.get("id"))


def _build(where: str, text: object, metadata: object, score: float | None, id_: object) -> Chunk:
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise ChunkError(f"{where} text is {a_type(text)}, not str; decode or drop it")
    if metadata is None:
        metadata = _EMPTY
    if not isinstance(metadata, Mapping):
        raise ChunkError(f"{where} metadata is {a_type(metadata)}; it must be a mapping")
    return Chunk(text, metadata, score, None if id_ is None else str(id_))


def _score(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ChunkError(f"{where} score is {value!r}; it must be a number or absent")
    return float(value)
