"""The access leakage evaluation through each framework's shipped ``GuardedRetriever``, over a
real vector store without pushdown and one with it, access given as the principal only (the
guard's access source decides): leaks, authorised recall at k against the exact ranking of
what the principal may view, and requests that came back short."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from pushdown_support import Corpus

from rag_guard_integrations import AccessContext, Chunk, Guard
from rag_guard_integrations.embeddings import default_embedder

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rag_guard_integrations.authz.sample import SampleOrg

QUERIES = (
    "What does the backend folder hold?",
    "Summarise the payroll documents.",
    "Which legal papers were filed?",
    "What is in the frontend folder?",
    "Show the finance records.",
    "What did engineering file?",
)
K = 4
# The chunk metadata key naming the resource: not ``doc_id``, which LlamaIndex overwrites in
# what its stores filter on (the scope would then not be pushed down there).
RESOURCE_KEY = "resource"
# Store per framework and whether the adapter pushes the scope into it.
STORES = {
    "langchain": {"sklearn": False, "chroma": True},
    "llama_index": {"faiss": False, "chroma": True},
}


# The id-list corpus: one chunk per resource, for scopes of 10, 100 and 1,000 ids.
ID_KEY = "resource"
ID_RESOURCES = 1200
TOPICS = ("invoices", "the release plan", "hiring", "a security review", "the supplier audit")
ID_QUERIES = (
    "When are the invoices due?",
    "What changed in the release plan?",
    "Who is being hired?",
    "What did the security review find?",
)


class MemoEmbedder:
    """The MiniLM embedder, each text embedded once per process (stores, queries and the
    ground-truth ranking then share the very same vectors)."""

    def __init__(self) -> None:
        self._vectors: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts``, computing only the new ones."""
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, default_embedder().embed_documents(new), strict=True))
        return [self._vectors[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The vector of ``text`` (queries and documents embed alike with MiniLM)."""
        return self.embed_documents([text])[0]


@cache
def memo() -> MemoEmbedder:
    """The process-wide memoised embedder."""
    return MemoEmbedder()


def id_corpus() -> Corpus:
    """One chunk per resource, text varied enough for a ranking to mean something."""
    chunks = [
        Chunk(
            f"Note {n} of team {n % 37} about {TOPICS[n % len(TOPICS)]}, week {n % 52}.",
            {ID_KEY: f"res-{n:04d}"},
            id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"res-{n:04d}")),
        )
        for n in range(ID_RESOURCES)
    ]
    vectors = np.array(memo().embed_documents([c.text for c in chunks]))
    return Corpus(chunks, vectors)


def indexed_chunks(org: SampleOrg) -> list[Chunk]:
    """``org``'s chunks with their resource id under :data:`RESOURCE_KEY` too."""
    return [
        Chunk(c.text, {**c.metadata, RESOURCE_KEY: c.metadata["doc_id"]}, id=c.id)
        for c in org.chunks()
    ]


def store_id(chunk: Chunk) -> str:
    """A UUID for the chunk (some stores take no other ids), derived from its own id."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, str(chunk.id)))


def flat(metadata: dict[str, Any]) -> dict[str, Any]:
    """The metadata without list values (LlamaIndex's Chroma store refuses them)."""
    return {k: v for k, v in metadata.items() if not isinstance(v, list)}


def langchain_store(name: str, chunks: Sequence[Chunk]) -> Any:
    """A LangChain vector store over ``chunks``: ``sklearn`` (no pushdown entry) or ``chroma``."""
    from langchain_core.documents import Document

    from rag_guard_integrations.langchain import MiniLMEmbeddings

    embeddings = MiniLMEmbeddings(embedder=memo())
    docs = [Document(c.text, metadata=dict(c.metadata), id=store_id(c)) for c in chunks]
    ids = [store_id(c) for c in chunks]
    if name == "sklearn":
        from langchain_community.vectorstores import SKLearnVectorStore

        return SKLearnVectorStore.from_documents(docs, embeddings, ids=ids)
    import chromadb
    from langchain_chroma import Chroma

    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    store = Chroma(
        collection_name=f"authz-{uuid.uuid4().hex[:8]}",
        embedding_function=embeddings,
        client=client,
    )
    store.add_documents(docs, ids=ids)
    return store


def llama_index(name: str, chunks: Sequence[Chunk]) -> Any:
    """A LlamaIndex index over ``chunks`` in ``faiss`` (no metadata filters) or ``chroma``."""
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.schema import TextNode

    from rag_guard_integrations.llama_index import MiniLMEmbedding

    vectors = memo().embed_documents([c.text for c in chunks])
    nodes = []
    for chunk, vector in zip(chunks, vectors, strict=True):
        metadata = dict(chunk.metadata) if name == "faiss" else flat(dict(chunk.metadata))
        keys = list(metadata)
        nodes.append(
            TextNode(
                text=chunk.text,
                id_=store_id(chunk),
                metadata=metadata,
                embedding=vector,
                excluded_embed_metadata_keys=keys,
                excluded_llm_metadata_keys=keys,
            )
        )
    if name == "faiss":
        import faiss
        from llama_index.vector_stores.faiss import FaissVectorStore

        store: Any = FaissVectorStore(faiss_index=faiss.IndexFlatIP(384))
    else:
        import chromadb
        from llama_index.vector_stores.chroma import ChromaVectorStore

        client = chromadb.EphemeralClient(
            settings=chromadb.config.Settings(anonymized_telemetry=False)
        )
        store = ChromaVectorStore(
            chroma_collection=client.create_collection(f"authz-{uuid.uuid4().hex[:8]}")
        )
    context = StorageContext.from_defaults(vector_store=store)
    return VectorStoreIndex(nodes, storage_context=context, embed_model=MiniLMEmbedding(memo()))


Who = str | AccessContext | None
"""A principal, or an access context naming one (and the groups an app resolved)."""


def retriever(
    framework: str, store: Any, guard: Guard, k: int = K, fetch_k: int | None = None
) -> Callable[[str, Who], list[str]]:
    """The framework's ``GuardedRetriever`` over ``store``, as a call (query, principal) ->
    the ``doc_id`` and part of each returned chunk (``"doc#part"``, the chunk's own id)."""
    if framework == "langchain":
        from rag_guard_integrations.langchain import GuardedRetriever as LangChainRetriever

        guarded = LangChainRetriever(
            retriever=store.as_retriever(search_kwargs={"k": k}), guard=guard, fetch_k=fetch_k
        )

        def ask_langchain(query: str, who: Who) -> list[str]:
            documents = guarded.invoke(query, access=as_access(who))
            return [chunk_key(d.metadata, d.page_content) for d in documents]

        return ask_langchain
    from rag_guard_integrations.llama_index import GuardedRetriever as LlamaRetriever
    from rag_guard_integrations.llama_index import guard_access

    guarded_nodes = LlamaRetriever(
        retriever=store.as_retriever(similarity_top_k=k), guard=guard, fetch_k=fetch_k
    )

    def ask_llama_index(query: str, who: Who) -> list[str]:
        with guard_access(as_access(who)):
            nodes = guarded_nodes.retrieve(query)
        return [chunk_key(n.node.metadata, n.node.get_content()) for n in nodes]

    return ask_llama_index


def as_access(who: Who) -> AccessContext:
    """``who`` as the access a request brings."""
    return who if isinstance(who, AccessContext) else AccessContext(who)


def chunk_key(metadata: dict[str, Any], text: str) -> str:
    """``doc_id#part`` of a returned chunk (its text says which part it is; the id corpus has
    one part per resource)."""
    part = 0 if text.startswith("Part 1 ") else 1
    resource = metadata["doc_id"] if "doc_id" in metadata else metadata[ID_KEY]
    return f"{resource}#{part}"


@dataclass(frozen=True, slots=True)
class FrameworkLeakage:
    """One engine x framework x store: ``leak_rate`` is the share of the chunks a retriever
    without the guard would have handed over (top ``fetch`` of the plain ranking) that the
    principal may not view and that came back; ``authorised_recall`` the share of the exact
    top-k viewable chunks that came back; ``short`` the requests that came back with fewer
    than min(k, viewable) chunks."""

    framework: str
    store: str
    pushdown: bool
    cases: int
    leaks: int
    exposed: int
    hits: int
    expected: int
    short: int

    @property
    def leak_rate(self) -> float:
        """Leaked over exposed (0.0 when nothing was exposed)."""
        return self.leaks / self.exposed if self.exposed else 0.0

    @property
    def authorised_recall(self) -> float:
        """Exact top-k viewable chunks returned, over all of them."""
        return self.hits / self.expected if self.expected else 1.0


class Truth:
    """The exact ranking of ``chunks`` by the memoised vectors, and who may view what."""

    def __init__(self, org: SampleOrg, chunks: Sequence[Chunk]) -> None:
        self.org = org
        self.keys = [str(c.id) for c in chunks]
        self.docs = [str(c.metadata["doc_id"]) for c in chunks]
        self.vectors = np.array(memo().embed_documents([c.text for c in chunks]))

    def ranking(self, query: str) -> list[int]:
        """Chunk positions, most similar first."""
        scores = self.vectors @ np.array(memo().embed_query(query))
        return list(np.argsort(-scores, kind="stable"))

    def expected(self, query: str, user: str, k: int) -> list[str]:
        """The top ``k`` chunks ``user`` may view."""
        viewable = [i for i in self.ranking(query) if self.org.can_view(user, self.docs[i])]
        return [self.keys[i] for i in viewable[:k]]

    def exposed(self, query: str, user: str, fetch: int) -> set[str]:
        """The chunks ``user`` may not view among the top ``fetch`` of the plain ranking."""
        top = self.ranking(query)[:fetch]
        return {self.keys[i] for i in top if not self.org.can_view(user, self.docs[i])}


def evaluate(
    framework: str,
    store_name: str,
    guard: Guard,
    org: SampleOrg,
    cases: int,
    *,
    k: int = K,
    fetch_k: int | None = None,
    seed: int = 0,
) -> FrameworkLeakage:
    """Run ``cases`` (query, principal) requests through the framework's retriever over
    ``store_name`` built from :func:`indexed_chunks`, the guard's source keyed on
    :data:`RESOURCE_KEY`; every user is drawn, the one in no team too."""
    chunks = indexed_chunks(org)
    build = langchain_store if framework == "langchain" else llama_index
    ask = retriever(framework, build(store_name, chunks), guard, k, fetch_k)
    truth = Truth(org, chunks)
    fetch = fetch_k if fetch_k is not None else 4 * k
    draw = random.Random(seed)
    users = sorted(org.users)
    leaks = exposed = hits = expected = short = 0
    for _ in range(cases):
        user, query = draw.choice(users), draw.choice(QUERIES)
        returned = ask(query, user)
        wanted = truth.expected(query, user, k)
        unseen = truth.exposed(query, user, fetch)
        docs = [key.split("#")[0] for key in returned]
        leaks += sum(not org.can_view(user, doc) for doc in docs)
        exposed += len(unseen)
        hits += len(set(wanted) & set(returned))
        expected += len(wanted)
        short += len(returned) < len(wanted)
    pushes = STORES[framework][store_name]
    return FrameworkLeakage(
        framework, store_name, pushes, cases, leaks, exposed, hits, expected, short
    )
