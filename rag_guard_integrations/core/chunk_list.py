"""The chunks of one check, read once into columns: each text and each metadata mapping as the
caller handed it, and a :class:`Chunk` built only for a chunk something asks for."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from rag_guard_integrations.core.chunk import Chunk
from rag_guard_integrations.core.errors import ChunkError
from rag_guard_integrations.core.records import slot_filler

_EMPTY: Mapping[str, Any] = {}


class ChunkList(Sequence[Chunk]):
    """The retrieved chunks of one check: ``texts`` and ``metadata`` are columns, read without
    an object per chunk, and ``chunks[i]`` is the :class:`Chunk` at ``i``, built the first time
    it is asked for (then the same object each time). Most stages read metadata alone, and a
    retrieved dict becomes a Chunk only if it is allowed and someone asks for it.

    A list picked from it (:meth:`pick`) shares its chunks: ``picked[j]`` is the very Chunk of
    the whole list at that position.

    Example:
        >>> chunks = coerce_chunks([{"text": "a", "meta": {"k": 1}}, {"text": "b", "meta": {}}])
        >>> chunks.metadata, chunks[0].text
        ([{'k': 1}, {}], 'a')
        >>> picked = chunks.pick([1])
        >>> picked.texts, picked[0] is chunks[1]
        (['b'], True)
    """

    __slots__ = ("_made", "_root", "_where", "metadata", "plain", "texts")

    def __init__(
        self,
        texts: list[str],
        metadata: list[Mapping[str, Any]],
        made: list[Chunk | None],
        *,
        plain: bool = True,
    ) -> None:
        self.texts = texts
        self.metadata = metadata
        # The chunk at each position once built (None: not yet, built from its columns).
        self._made = made
        # True when every chunk is a plain Chunk, none of a subclass such as NonTextChunk.
        self.plain = plain
        self._root: ChunkList | None = None  # a picked list: the whole one and its positions
        self._where: Sequence[int] = ()

    def pick(self, positions: Sequence[int]) -> ChunkList:
        """The chunks at ``positions`` (ascending), as a list sharing these chunks; ``self``
        when ``positions`` are all of them."""
        if len(positions) == len(self.texts):
            return self
        texts, metadata = self.texts, self.metadata
        picked = ChunkList(
            [texts[i] for i in positions],
            [metadata[i] for i in positions],
            [],
            plain=self.plain,
        )
        root = self._root
        picked._root = self if root is None else root
        picked._where = positions if root is None else [self._where[i] for i in positions]
        return picked

    def score_at(self, index: int) -> float | None:
        """The score of the chunk at ``index``, read without building it."""
        if self._root is not None:
            return self._root.score_at(self._where[index])
        made = self._made[index]
        return None if made is None else made.score

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, index: int) -> Chunk: ...

    @overload
    def __getitem__(self, index: slice) -> list[Chunk]: ...

    def __getitem__(self, index: int | slice) -> Chunk | list[Chunk]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if self._root is not None:
            return self._root[self._where[index]]
        chunk = self._made[index]
        if chunk is None:
            chunk = self._made[index] = _new_chunk(
                self.texts[index], self.metadata[index], None, None
            )
        return chunk

    def __iter__(self) -> Iterator[Chunk]:
        return map(self.__getitem__, range(len(self)))

    def __repr__(self) -> str:
        return f"ChunkList({len(self)} chunks)"


def metadata_of(chunks: Sequence[Chunk]) -> Sequence[Mapping[str, Any]]:
    """The metadata of each of ``chunks``: a :class:`ChunkList`'s column, read without building
    its chunks.

    Example:
        >>> metadata_of([Chunk("a", {"k": 1})])
        [{'k': 1}]
    """
    if type(chunks) is ChunkList:
        return chunks.metadata
    return [chunk.metadata for chunk in chunks]


def texts_of(chunks: Sequence[Chunk]) -> Sequence[str]:
    """The text of each of ``chunks``: a :class:`ChunkList`'s column, read without building its
    chunks.

    Example:
        >>> texts_of([Chunk("a")])
        ['a']
    """
    if type(chunks) is ChunkList:
        return chunks.texts
    return [chunk.text for chunk in chunks]


def coerce_chunks(items: object) -> ChunkList:
    """Read the list handed to a guard into a :class:`ChunkList`; anything but a list or tuple,
    or an item :meth:`Chunk.from_any` cannot read, is a :class:`ChunkError`."""
    if type(items) is not list and (
        isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence)
    ):
        raise ChunkError(
            f"chunks must be a list, got {type(items).__name__}; wrap a single chunk in a list"
        )
    texts: list[str] = []
    metadata: list[Mapping[str, Any]] = []
    add_text, add_metadata = texts.append, metadata.append
    built: dict[int, Chunk] = {}
    for item in items:
        # The commonest shape, {"text": str, "meta": dict}, becomes columns alone: two
        # lookups, and no object.
        if type(item) is dict and len(item) == 2:
            text = item.get("text")
            found = item.get("meta")
            if type(text) is str and type(found) is dict:
                add_text(text)
                add_metadata(found)
                continue
        position = len(texts)
        if type(item) is Chunk:  # what the adapters hand over
            chunk = built[position] = item
        else:
            chunk = built[position] = _fast_dict(item) or Chunk.from_any(item, position=position)
        add_text(chunk.text)
        add_metadata(chunk.metadata)
    made: list[Chunk | None] = [None] * len(texts)
    for position, chunk in built.items():
        made[position] = chunk
    plain = all(type(chunk) is Chunk for chunk in built.values())
    return ChunkList(texts, metadata, made, plain=plain)


def _fast_dict(item: object) -> Chunk | None:
    """The chunk of a dict whose fields are all of their plain types, ``{"text": str, "meta"
    or "metadata": dict, "score": float, "id": str}`` (each but the text optional), built
    directly; None for any other item, which :meth:`Chunk.from_any` checks and explains."""
    if type(item) is not dict or type(text := item.get("text")) is not str:
        return None
    if "page_content" in item or ("meta" in item and "metadata" in item):
        return None  # two copies of a field: from_any refuses the dict
    metadata = item["meta"] if "meta" in item else item.get("metadata")
    score, id_ = item.get("score"), item.get("id")
    if not (
        (metadata is None or type(metadata) is dict)
        and (score is None or type(score) is float)
        and (id_ is None or type(id_) is str)
    ):
        return None
    return _new_chunk(text, _EMPTY if metadata is None else metadata, score, id_)


# Chunks are made per retrieved item: filled slot by slot, a third of the frozen __init__'s cost.
_new_chunk = slot_filler(Chunk)
