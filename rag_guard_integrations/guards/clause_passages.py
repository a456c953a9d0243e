"""The passages of a chunk that the clause guard's semantic fingerprint scores."""

from __future__ import annotations

from itertools import pairwise

from rag_guard_integrations.core.normalize import normalize
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.core.sentences import clause_text

# A sentence ends at one of these marks followed by white space; periods that end nothing
# ("Section 8.3", "Inc.") were masked by clause_text first.
_SENTENCE_END = compile_pattern(r"[.;:!?]\s+")
SHORTEST_PASSAGE = 20  # characters: a shorter fragment (a heading, "(a)") joins the next one
WINDOW_WORDS = 24  # a long sentence is also read in windows of this many words, half overlapping


def passages(text: str) -> list[str]:
    """The parts of ``text`` the semantic fingerprint scores (normalised, in order, distinct).

    A clause is often one sentence of a longer chunk, or a long sentence whose point is in a
    few words: every sentence, every two neighbouring sentences, the whole text when it has
    three or more, and windows of :data:`WINDOW_WORDS` words every half window.

    Example:
        >>> passages("9.1 Governing Law. This Agreement is governed by Ohio law.")
        ['9.1 governing law. this agreement is governed by ohio law.']
        >>> passages("Either party may assign. Neither may charge it.")[-1]
        'either party may assign. neither may charge it.'
    """
    normalized = normalize(text)
    masked = clause_text(text)  # same length: only inner periods differ
    sentences: list[str] = []
    pending = ""
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(masked)] + [len(masked)]:
        piece = f"{pending} {normalized[start:end].strip()}".strip()
        start = end
        if len(piece) >= SHORTEST_PASSAGE or end == len(masked):
            sentences.append(piece)
            pending = ""
        else:
            pending = piece
    sentences = [s for s in sentences if s]
    found = list(sentences)
    found += [f"{a} {b}" for a, b in pairwise(sentences)]
    if len(sentences) > 2:
        found.append(" ".join(sentences))
    words = normalized.split()
    if len(words) > WINDOW_WORDS:
        step = WINDOW_WORDS // 2
        found += [" ".join(words[i : i + WINDOW_WORDS]) for i in range(0, len(words) - step, step)]
    return list(dict.fromkeys(found))
