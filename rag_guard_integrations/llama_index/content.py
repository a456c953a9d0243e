"""What the guard judges of a LlamaIndex node, where each part of it came from, and a node
copy with the guard's masked spans written back where they came from."""

from __future__ import annotations

from dataclasses import replace
from string import Formatter
from typing import TYPE_CHECKING, Any

from llama_index.core.schema import MetadataMode, RelatedNodeInfo, TextNode

from rag_guard_integrations.engine.redact import mask_text
from rag_guard_integrations.engine.scrub import scrubbed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from llama_index.core.schema import BaseNode

    from rag_guard_integrations.core.decisions import Redaction

# Where a part of the judged text came from: a metadata key (None: the node's text), and its
# start and end in the judged text.
Segment = tuple[str | None, int, int]
_ABSENT = object()


def llm_content(node: BaseNode) -> str:
    """What LlamaIndex puts in the prompt for ``node``: its text (a ``Node``'s text resource)
    and every metadata value not excluded from the LLM."""
    return node.get_content(metadata_mode=MetadataMode.LLM)


def judged_text(node: BaseNode) -> str:
    """The text the guard judges for ``node``: its LLM content, then each non-blank string
    metadata value excluded from the LLM (a sentence window, say) after a blank line, since a
    postprocessor can swap any of them in front of the LLM.

    Example:
        >>> judged_text(TextNode(text="Hi.", metadata={"dept": "sales"}))
        'dept: sales\\n\\nHi.'
    """
    return "".join([llm_content(node), *(f"\n\n{value}" for _, value in _hidden(node))])


def masked_copy(
    node: BaseNode,
    spans: Sequence[Redaction],
    expected: str,
    masks: Sequence[tuple[str, str]] = (),
) -> BaseNode | None:
    """A copy of ``node`` with each span of its judged text masked where it came from (its
    text, or a metadata value), and what the spans hid (``masks``) masked in every metadata
    value too (lists and numbers included, which the guard does not judge); None when a span
    crosses or leaves those parts, or when the copy would not be judged as exactly
    ``expected`` (the guard's masked text: a masked value written another way in a value the
    LLM sees)."""
    segments = _segments(node)
    edits: dict[str | None, list[Redaction]] = {}
    for span in spans:
        home = next((s for s in segments if s[1] <= span.start and span.end <= s[2]), None)
        if home is None:
            return None
        moved = replace(span, start=span.start - home[1], end=span.end - home[1])
        edits.setdefault(home[0], []).append(moved)
    metadata = dict(node.metadata)
    for key, key_spans in edits.items():
        if key is not None:
            metadata[key] = mask_text(str(metadata[key]), key_spans)
    # Kept from the LLM: masked here. Shown to it: masked above where the guard found a span;
    # a masked value written there another way changes the LLM's view, and the copy is not
    # made (the node is withheld).
    # Keys and ids too: a key or an id may hold the value (``"jo@x.io": "last contacted"``).
    keys = {key: scrubbed(key, masks) for key in metadata}
    copy = node.model_copy(
        update={
            "metadata": {keys[key]: scrubbed(value, masks) for key, value in metadata.items()},
            "excluded_llm_metadata_keys": [keys.get(k, k) for k in node.excluded_llm_metadata_keys],
            "excluded_embed_metadata_keys": [
                keys.get(k, k) for k in node.excluded_embed_metadata_keys
            ],
            "id_": scrubbed(node.id_, masks),
            "relationships": scrubbed_relationships(node, masks),
        }
    )
    if None in edits:
        copy.set_content(mask_text(node.get_content(metadata_mode=MetadataMode.NONE), edits[None]))
    return copy if judged_text(copy) == expected else None


def scrubbed_relationships(node: BaseNode, masks: Sequence[tuple[str, str]]) -> dict[Any, Any]:
    """``node``'s relationships with what ``masks`` hid taken out of each related node's id
    and metadata (the source document's id is the copy's ``ref_doc_id``)."""

    def scrub(info: RelatedNodeInfo) -> RelatedNodeInfo:
        return info.model_copy(
            update={
                "node_id": scrubbed(info.node_id, masks),
                "metadata": scrubbed(dict(info.metadata), masks),
            }
        )

    return {
        kind: [scrub(i) for i in related] if isinstance(related, list) else scrub(related)
        for kind, related in node.relationships.items()
    }


def _hidden(node: BaseNode) -> list[tuple[str, str]]:
    """The non-blank string metadata values excluded from the LLM, in metadata order."""
    excluded = set(node.excluded_llm_metadata_keys)
    return [
        (key, value)
        for key, value in node.metadata.items()
        if key in excluded and isinstance(value, str) and value.strip()
    ]


def _segments(node: BaseNode) -> list[Segment]:
    """Where each maskable part of the judged text sits (none of the LLM content when its
    layout cannot be rebuilt: a custom node or template)."""
    content = llm_content(node)
    segments = list(_content_segments(node, content))
    cursor = len(content)
    for key, value in _hidden(node):
        segments.append((key, cursor + 2, cursor + 2 + len(value)))
        cursor += 2 + len(value)
    return segments


def _content_segments(node: BaseNode, content: str) -> tuple[Segment, ...]:
    """Where the text and each LLM-visible metadata value sit in ``content``, rebuilt as
    LlamaIndex formats them; empty when the rebuilt text is not ``content``."""
    body = node.get_content(metadata_mode=MetadataMode.NONE)
    excluded = set(node.excluded_llm_metadata_keys)
    entries: list[str] = []
    values: list[Segment] = []
    cursor = 0
    for key, value in node.metadata.items():
        if key in excluded:
            continue
        if entries:
            cursor += len(node.metadata_separator)
        rendered = _render(node.metadata_template, {"key": key, "value": str(value)})
        if rendered is None:
            return ()
        entry, starts = rendered
        if "value" in starts:
            start = cursor + starts["value"]
            values.append((key, start, start + len(str(value))))
        entries.append(entry)
        cursor += len(entry)
    meta = node.metadata_separator.join(entries)
    if isinstance(node, TextNode):  # TextNode strips the metadata block; Node does not
        values = _shifted(values, -(len(meta) - len(meta.lstrip())))
        meta = meta.strip()
    if not meta:
        return ((None, 0, len(body)),) if body == content else ()
    template = getattr(node, "text_template", None)
    rendered = (
        None if template is None else _render(template, {"content": body, "metadata_str": meta})
    )
    if rendered is None:
        return ()
    full, starts = rendered
    segments: list[Segment] = []
    if "content" in starts:
        segments.append((None, starts["content"], starts["content"] + len(body)))
    if "metadata_str" in starts:
        segments.extend(_shifted(values, starts["metadata_str"]))
    if full.strip() != content:
        return ()
    return tuple(_shifted(segments, -(len(full) - len(full.lstrip()))))


def _render(template: str, values: dict[str, str]) -> tuple[str, dict[str, int]] | None:
    """``template.format(**values)`` and where each field starts; None for a field that is
    unknown, formatted (``{value!r}``, ``{value:>9}``) or used twice."""
    pieces: list[str] = []
    starts: dict[str, int] = {}
    length = 0
    for literal, name, spec, conversion in Formatter().parse(template):
        pieces.append(literal)
        length += len(literal)
        if name is None:
            continue
        if name not in values or spec or conversion or name in starts:
            return None
        starts[name] = length
        pieces.append(values[name])
        length += len(values[name])
    return "".join(pieces), starts


def _shifted(segments: Sequence[Segment], by: int) -> list[Segment]:
    return [(key, start + by, end + by) for key, start, end in segments]


def without_unjudged_relations(node: BaseNode) -> BaseNode:
    """``node``, or a copy whose relationships keep only the metadata entries ``node`` holds
    itself: a neighbour's entries (a sentence parser copies each neighbour's window into
    ``relationships``) were never judged, and instrumentation shows them with the node."""
    relationships: dict[Any, Any] = {}
    changed = False
    for kind, related in node.relationships.items():
        infos = related if isinstance(related, list) else [related]
        kept = []
        for info in infos:
            own = {k: v for k, v in info.metadata.items() if node.metadata.get(k, _ABSENT) == v}
            changed = changed or len(own) != len(info.metadata)
            kept.append(
                info
                if len(own) == len(info.metadata)
                else info.model_copy(update={"metadata": own})
            )
        relationships[kind] = kept if isinstance(related, list) else kept[0]
    return node.model_copy(update={"relationships": relationships}) if changed else node
