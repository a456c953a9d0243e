"""Fetching unchecked candidates so that a failure cannot quote them.

An adapter fetches what the guard has not checked yet. If that fetch raises, the exception's
message may quote a candidate (a store or parser error naming the record it choked on), and it
would reach the caller, ``on_retriever_error``, span handlers and traces. :func:`shielded` runs
the fetch inside the adapter's quiet block and turns any failure into a
:class:`RetrievalError` that names only the exception's type, raised outside the failure so
that it carries no ``__context__`` either. The package's own errors pass unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from rag_guard_integrations.core.errors import RagGuardError, RetrievalError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from contextlib import AbstractContextManager

T = TypeVar("T")


def shielded(
    fetch: Callable[[], T],
    quiet: AbstractContextManager[object],
    source: str,
    step: str = "the inner retriever",
) -> T:
    """``fetch()`` inside ``quiet``; a failure becomes a :class:`RetrievalError` of ``source``
    naming ``step`` (what ``fetch`` runs).

    Example:
        >>> from contextlib import nullcontext
        >>> shielded(lambda: [1, 2], nullcontext(), "GuardedRetriever")
        [1, 2]
        >>> shielded(lambda: {}["secret text"], nullcontext(), "GuardedRetriever")
        Traceback (most recent call last):
        ...
        rag_guard_integrations.core.errors.RetrievalError: GuardedRetriever: the inner \
retriever raised KeyError; its message is withheld because it may quote unchecked nodes \
(call the inner retriever directly to debug it)
    """
    failed = ""
    with quiet:
        try:
            return fetch()
        except RagGuardError:
            raise  # the package's own errors quote no candidate
        except Exception as error:  # re-raised below without its text
            failed = type(error).__name__
    raise RetrievalError(source, failed, step)


async def ashielded(
    fetch: Callable[[], Awaitable[T]],
    quiet: AbstractContextManager[object],
    source: str,
    step: str = "the inner retriever",
) -> T:
    """Async twin of :func:`shielded`."""
    failed = ""
    with quiet:
        try:
            return await fetch()
        except RagGuardError:
            raise  # the package's own errors quote no candidate
        except Exception as error:  # re-raised below without its text
            failed = type(error).__name__
    raise RetrievalError(source, failed, step)
