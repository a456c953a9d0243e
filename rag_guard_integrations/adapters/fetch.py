"""Fetching what the guard has not checked yet: out of sight of every observer, and so that a
failure cannot quote it.

An adapter's inner retriever returns candidates the guard has not judged. Its framework would
report them (callbacks, events, spans, log records), so the fetch runs inside the adapter's
``quiet`` block. If it raises, the message may quote a candidate (a store or parser error
naming the record it choked on) and would reach the caller, error callbacks and traces:
:func:`shielded` turns any failure into a :class:`RetrievalError` that names only the
exception's type, raised outside the failure so that it carries no ``__context__`` either. The
package's own errors pass unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from rag_guard_integrations.core.errors import RagGuardError, RetrievalError

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rag_guard_integrations.adapters.drive import Flow

T = TypeVar("T")


def shielded(
    fetch: Flow[T],
    quiet: AbstractContextManager[object],
    source: str,
    what: str = "the inner retriever",
) -> Flow[T]:
    """``fetch`` run inside ``quiet``; a failure becomes a :class:`RetrievalError` of
    ``source`` naming ``what`` it runs.

    Example:
        >>> from contextlib import nullcontext
        >>> from rag_guard_integrations.adapters.drive import Call, once, run
        >>> run(shielded(once(Call(lambda: [1, 2])), nullcontext(), "GuardedRetriever"))
        [1, 2]
        >>> missing = once(Call(lambda: {}["secret text"]))
        >>> run(shielded(missing, nullcontext(), "GuardedRetriever"))
        Traceback (most recent call last):
        ...
        rag_guard_integrations.core.errors.RetrievalError: GuardedRetriever: the inner \
retriever raised KeyError; its message is withheld because it may quote unchecked nodes \
(call the inner retriever directly to debug it)
    """
    failed = ""
    with quiet:
        try:
            return (yield from fetch)
        except RagGuardError:
            raise  # the package's own errors quote no candidate
        except Exception as error:  # re-raised below without its text
            failed = type(error).__name__
    raise RetrievalError(source, failed, what)
