"""The question-kind signal of the domain guard: what a query asks, whichever product it names.

A policy's ``kinds`` section holds two sets of prototype questions written for the domain: the
kinds of question the collection answers (``in_domain``: "does this product need a certification
mark", "what thickness is required for this product") and everyday questions that name the same
products (``everyday``: "where can I buy this product", "how do I clean this product"). Before
comparing, the query's product terms (the policy's ``roots`` and ``signature_terms``, plurals
and compounds included) are replaced by the ``placeholder`` the prototypes use, so that what is
asked counts and not which product: "is my pressure cooker safe to import" is compared as "is
my product safe to import", "how to clean a burnt pressure cooker" as "how to clean a burnt
product"; adjacent terms make one placeholder ("gi sheets" is one product).

The **margin** is the best cosine similarity of the masked query to an in-domain prototype
minus the best to an everyday one (MiniLM, unit vectors). A positive margin reads as the
collection's kind of question, a negative one as an everyday question about the product.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.core.cache import BoundedCache
from rag_guard_integrations.core.normalize import CACHED_CHARS, normalize
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.embeddings import cosine, unit

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.embeddings import Embedder
    from rag_guard_integrations.guards.domain_terms import TermMatcher
    from rag_guard_integrations.policy.schema import KindSpec


class KindScorer:
    """Scores how far a normalised query reads as an in-domain rather than an everyday question.

    ``products`` are the matchers whose terms are masked; ``vector_of`` turns a text into its
    unit vector (the guard passes its cached query embedding, so a query that names no product
    costs no second embedding).

    Example:
        >>> from rag_guard_integrations.embeddings import default_embedder
        >>> from rag_guard_integrations.guards.domain_terms import TermMatcher
        >>> from rag_guard_integrations.policy.schema import KindSpec
        >>> spec = KindSpec(in_domain=["does this product need a safety certificate"],
        ...                 everyday=["where can I buy this product cheaply"])
        >>> scorer = KindScorer(spec, [TermMatcher(["kettle"], compounds=True)])
        >>> scorer.masked("does my kettle need a certificate")
        'does my product need a certificate'
        >>> embedder = default_embedder()
        >>> def vector_of(text):
        ...     return unit(embedder.embed_query(text))
        >>> scorer.margin("does my kettle need a certificate", vector_of, embedder) > 0
        True
    """

    def __init__(self, spec: KindSpec, products: Sequence[TermMatcher]) -> None:
        self.spec = spec
        self._products = tuple(products)
        self._placeholder = normalize(spec.placeholder)
        word = re.escape(self._placeholder)
        self._repeats: Any = compile_pattern(rf"\b{word}(?:[\s\-]+{word}\b)+")
        self._prototypes: tuple[Any, Any] | None = None
        self._margins: BoundedCache[str, float] = BoundedCache(8192, max_key_len=CACHED_CHARS)

    def masked(self, text: str) -> str:
        """The normalised ``text`` with every product term replaced by the placeholder."""
        for matcher in self._products:
            text = matcher.replace(text, self._placeholder)
        return str(self._repeats.sub(self._placeholder.replace("\\", "\\\\"), text))

    def margin(self, text: str, vector_of: Callable[[str], Any], embedder: Embedder) -> float:
        """Best in-domain minus best everyday prototype similarity of the masked ``text``
        (cached by text: one scorer serves one guard, with one embedder)."""

        def compute() -> float:
            inside, everyday = self._vectors(embedder)
            query = vector_of(self.masked(text))
            return _best(inside, query) - _best(everyday, query)

        return self._margins.remember(text, compute)

    def _vectors(self, embedder: Embedder) -> tuple[Any, Any]:
        """The prototypes' unit vectors, embedded once (in one call) on first use."""
        if self._prototypes is None:
            texts = [*self.spec.in_domain, *self.spec.everyday]
            vectors = [unit(v) for v in embedder.embed_documents(texts)]
            split = len(self.spec.in_domain)
            self._prototypes = (_matrix(vectors[:split]), _matrix(vectors[split:]))
        return self._prototypes


def _matrix(vectors: list[Any]) -> Any:
    """The vectors as one numpy matrix, so a query costs one product; a list without numpy."""
    try:
        import numpy as np  # noqa: PLC0415 - comes with the embeddings extra
    except ImportError:
        return vectors
    return np.vstack(vectors)


def _best(prototypes: Any, query: Any) -> float:
    if isinstance(prototypes, list):
        return max(cosine(prototype, query) for prototype in prototypes)
    return float((prototypes @ query).max())
