"""GuardedRetriever and GuardCompressor behave like LangChain components: ``k`` and ``fetch_k``
fields, the inner retriever's own ``k``, ``access`` in ``config_specs``, unknown arguments
refused."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: TC002 - pydantic
from langchain_core.documents import Document  # noqa: TC002 - pydantic
from langchain_core.retrievers import BaseRetriever
from langchain_support import QUERY, Recorder, contract_documents, contract_store

from rag_guard_integrations import AccessContext, Guard, parse_policy
from rag_guard_integrations.core.errors import ArgumentError
from rag_guard_integrations.langchain import GuardCompressor, GuardedRetriever, build_rag_chain
from rag_guard_integrations.langchain.testing import EchoContextChat

EVERYONE = {"contract_type": ["MSA", "SOW", "CHANNEL", "NDA", "DPA"]}
ACCESS_ONLY = Guard(parse_policy("access: {attributes: [contract_type]}"))


class TopK(BaseRetriever):
    """A retriever with its own ``k`` field (as BM25Retriever has) and no ``**kwargs``."""

    documents: list[Document]
    k: int = 2

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self.documents[: self.k]


def returned(retriever: GuardedRetriever, **kwargs: Any) -> tuple[list[Document], dict[str, Any]]:
    """What the retriever returned and its ``rag_guard_result`` event."""
    recorder = Recorder()
    out = retriever.invoke(QUERY, config={"callbacks": [recorder]}, **kwargs)
    return out, recorder.events[0][1]


def test_k_and_fetch_k_are_constructor_fields() -> None:
    """``k=2`` returns two and fetches 4 x k; ``fetch_k`` overrides the over-fetch."""
    store = contract_store().as_retriever()
    out, event = returned(
        GuardedRetriever(retriever=store, guard=ACCESS_ONLY, k=2), access=EVERYONE
    )
    assert (len(out), event["k"], event["fetch_k"]) == (2, 2, 8)
    wide = GuardedRetriever(retriever=store, guard=ACCESS_ONLY, k=2, fetch_k=5)
    assert returned(wide, access=EVERYONE)[1]["fetch_k"] == 5
    assert returned(wide, access=EVERYONE, k=1)[1]["k"] == 1


def test_an_inner_k_field_is_the_default_and_gets_the_over_fetch() -> None:
    """A retriever with a ``k`` field sets the default k and is asked, on a copy, for fetch_k."""
    inner = TopK(documents=contract_documents(), k=2)
    out, event = returned(GuardedRetriever(retriever=inner, guard=ACCESS_ONLY), access=EVERYONE)
    assert (len(out), event["k"], event["fetch_k"], event["fetched"]) == (2, 2, 8, 8)
    assert inner.k == 2


def test_access_is_a_declared_configurable_field() -> None:
    """``config_schema()`` works and lists ``access``, on the retriever and on a chain over it."""
    retriever = GuardedRetriever(retriever=contract_store().as_retriever(), guard=ACCESS_ONLY)
    assert "access" in [spec.id for spec in retriever.config_specs]
    schema = retriever.config_schema().model_json_schema()
    assert "access" in schema["$defs"]["Configurable"]["properties"]
    chain = build_rag_chain(retriever, EchoContextChat())
    assert (
        "access" in chain.config_schema().model_json_schema()["$defs"]["Configurable"]["properties"]
    )


def test_access_field_accepts_what_the_docs_pass() -> None:
    """A mapping with a principal becomes an AccessContext."""
    retriever = GuardedRetriever(
        retriever=contract_store().as_retriever(),
        guard=ACCESS_ONLY,
        access={"principal": "ann", "contract_type": ["MSA"]},
    )
    assert retriever.access == AccessContext(principal="ann", contract_type={"MSA"})


@pytest.mark.parametrize(
    ("make", "argument", "hint"),
    [
        (GuardedRetriever, "acess", "did you mean 'access'"),
        (GuardedRetriever, "fetchk", "did you mean 'fetch_k'"),
        (GuardCompressor, "acess", "did you mean 'access'"),
        (GuardCompressor, "policy", "It takes: access, guard, pin_access, raise_on_reject"),
    ],
)
def test_unknown_constructor_arguments_are_refused(make: Any, argument: str, hint: str) -> None:
    """A misspelt argument is a one-line error naming it and the fix, not a silent default."""
    params: dict[str, Any] = {"guard": ACCESS_ONLY, argument: 1}
    if make is GuardedRetriever:
        params["retriever"] = contract_store().as_retriever()
    with pytest.raises(ArgumentError, match=hint) as raised:
        make(**params)
    assert repr(argument) in str(raised.value)
    assert "\n" not in str(raised.value)
