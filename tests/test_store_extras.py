"""One extra per vector store: each brings its LangChain and LlamaIndex store packages and what
their pushdown translators import, and a missing one is a MissingExtraError naming the extra."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from dependency_support import normalised, owners, pyproject
from langchain_core.embeddings import FakeEmbeddings
from langchain_qdrant import QdrantVectorStore
from packaging.requirements import Requirement

from rag_guard_integrations.core.errors import MissingExtraError
from rag_guard_integrations.langchain import stores as langchain_stores
from rag_guard_integrations.langchain.pushdown import plan_pushdown
from rag_guard_integrations.langchain.stores import Translated
from rag_guard_integrations.llama_index import stores as llama_index_stores

pytestmark = pytest.mark.unit

STORE_EXTRAS = ("chroma", "qdrant", "lancedb", "milvus", "pgvector", "faiss")
# The third-party module each translated store's filter is written with.
TRANSLATOR_MODULES = {
    "chroma": "langchain_community",
    "qdrant": "langchain_community",
    "milvus": "langchain_community",
    "lancedb": "langchain_community",
    "pgvector": "langchain_postgres",
}


def extras() -> dict[str, list[str]]:
    """The optional dependencies declared in pyproject.toml."""
    return dict(pyproject()["project"]["optional-dependencies"])


def names(requirements: list[str]) -> set[str]:
    """The normalised distribution names of requirement lines."""
    return {normalised(Requirement(r).name) for r in requirements}


def distribution_of(module: str) -> str:
    """The distribution that installed ``module`` (a dotted import path)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None, module
    assert spec.origin is not None, module
    return owners()[spec.origin]


def hide(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Make ``package`` and its submodules unimportable, as if it were not installed."""
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, package, None)


def test_each_store_has_its_extra_and_stores_is_their_union() -> None:
    """chroma, qdrant, lancedb, milvus, pgvector and faiss are extras; stores names them all."""
    declared = extras()
    for extra in STORE_EXTRAS:
        assert declared[extra], extra
    union = declared["stores"]
    assert union == [f"rag-guard-integrations[{','.join(STORE_EXTRAS)}]"]


@pytest.mark.parametrize("registry", [langchain_stores.STORES, llama_index_stores.STORES])
def test_each_registered_store_comes_from_the_extra_of_its_name(
    registry: dict[str, object],
) -> None:
    """The package holding every registered store class is a requirement of that store's extra
    (the in-process defaults need none)."""
    declared = extras()
    for path, support in registry.items():
        name = getattr(support, "name")  # noqa: B009 - both registries' entries carry a name
        if name in {"in_memory", "simple"}:
            continue
        module = path.rpartition(".")[0]
        wanted = names(declared[name])
        assert distribution_of(module) in wanted, (name, module)


def test_each_translator_module_is_brought_by_its_stores_extra() -> None:
    """The module each translated LangChain store's filter is written with is in its extra."""
    declared = extras()
    for support in langchain_stores.STORES.values():
        if isinstance(support, Translated):
            module = TRANSLATOR_MODULES[support.name]
            wanted = names(declared[support.name])
            assert distribution_of(module) in wanted, support.name


@pytest.mark.parametrize("support", [
    s for s in langchain_stores.STORES.values() if isinstance(s, Translated)
], ids=lambda s: s.name)  # fmt: skip
def test_a_missing_translator_package_names_the_extra_to_install(
    support: Translated, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the translator's package gone, asking for the translator raises MissingExtraError
    naming ``pip install 'rag-guard-integrations[STORE]'``."""
    hide(monkeypatch, TRANSLATOR_MODULES[support.name])
    # Our own translators module imports langchain-community: import it afresh.
    monkeypatch.delitem(sys.modules, "rag_guard_integrations.langchain.translators", raising=False)
    with pytest.raises(MissingExtraError, match=rf"rag-guard-integrations\[{support.name}\]"):
        support.translator(object())  # type: ignore[arg-type]


def test_a_qdrant_pushdown_without_langchain_community_names_the_qdrant_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real Qdrant store's pushdown, planned without langchain-community, is a
    MissingExtraError (an ImportError) naming the qdrant extra, not a bare
    ModuleNotFoundError."""
    store = QdrantVectorStore.from_texts(
        ["Either party may terminate on 30 days' notice."],
        FakeEmbeddings(size=8),
        metadatas=[{"contract_type": "MSA"}],
        location=":memory:",
        collection_name="extras",
    )
    hide(monkeypatch, "langchain_community")
    # The translator module imports langchain-community: forget it if an earlier test loaded it.
    monkeypatch.delitem(sys.modules, "rag_guard_integrations.langchain.translators", raising=False)
    with pytest.raises(MissingExtraError) as raised:
        plan_pushdown(store, {"contract_type": frozenset({"MSA"})})
    assert isinstance(raised.value, ImportError)
    assert "pip install 'rag-guard-integrations[qdrant]'" in str(raised.value)
    assert "langchain_community" in str(raised.value)


def test_a_missing_module_of_the_package_itself_is_not_called_an_extra() -> None:
    """A module of this package that fails to import is a defect: its error goes on as it is."""
    from rag_guard_integrations.core.extras import needs_extra

    with (
        pytest.raises(ModuleNotFoundError) as raised,
        needs_extra("qdrant", "Qdrant pushdown"),
    ):
        importlib.import_module("rag_guard_integrations.no_such_module")
    assert not isinstance(raised.value, MissingExtraError)
