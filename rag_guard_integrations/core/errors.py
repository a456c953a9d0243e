"""The error tree: one base class to catch, a few documented subclasses beneath it.

Every error the package raises on purpose derives from :class:`RagGuardError`; each also
derives from the builtin it refines (``ValueError``, ``TypeError``...), so code written
against the builtin keeps working::

    RagGuardError
    +-- PolicyError (ValueError)            a policy could not be loaded
    |   +-- PolicyNotFoundError (FileNotFoundError)
    +-- InputError (TypeError)              a query, chunk list or access context of the wrong type
    |   +-- ChunkError                      a chunk of the wrong shape
    |   +-- AccessError                     an access context of the wrong shape
    +-- ArgumentError (ValueError)          an argument with a value the function cannot use
    |   +-- AdapterConfigError (TypeError)  an adapter built or used wrongly
    +-- DataError (ValueError)              a data file that cannot be read
    +-- PatternCompileError (ValueError)    a pattern RE2 cannot compile
    +-- MissingExtraError (ImportError)     an optional extra is not installed
    |   +-- EmbedderUnavailableError
    +-- QueryRejected                       the domain guard rejected the query
    +-- ContextBlocked                      a block rule fired under ``on_block: raise``
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag_guard_integrations.core.decisions import GuardResult, QueryDecision


class RagGuardError(Exception):
    """Base class of every error this package raises on purpose."""


class PolicyError(RagGuardError, ValueError):
    """A policy could not be loaded: its message names the file, key path, line and fix.

    ``problems`` holds every problem found, one line each; ``str(error)`` is the first one.
    """

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        first = self.problems[0] if self.problems else "invalid policy"
        more = len(self.problems) - 1
        super().__init__(first + (f" (and {more} more)" if more else ""))


class PolicyNotFoundError(PolicyError, FileNotFoundError):
    """A policy file or built-in name does not exist."""


class InputError(RagGuardError, TypeError):
    """An argument has the wrong type: a query, chunk list or access context handed to a
    guard, a classifier's model or labels."""


class ChunkError(InputError):
    """A chunk or the chunk list handed to a guard has the wrong shape."""


class AccessError(InputError):
    """An access context of the wrong shape was passed."""


class ArgumentError(RagGuardError, ValueError):
    """An argument has a value the function cannot use; the message names it and the fix."""


class AdapterConfigError(ArgumentError, TypeError):
    """A framework adapter got an argument it cannot use (a missing guard, an unknown argument,
    the wrong kind of retriever) or was used out of order (a reused access block); also the
    ``TypeError`` Python raises for such misuse."""


class DataError(RagGuardError, ValueError):
    """A data file (JSONL records, labelled queries, a corpus) is missing or malformed."""


class PatternCompileError(RagGuardError, ValueError):
    """RE2 refused a pattern (a syntax error, or a feature such as a backreference)."""


class PatternTooLargeError(PatternCompileError):
    """An untrusted pattern is longer, or compiles to a larger RE2 program, than allowed."""


class MissingExtraError(RagGuardError, ImportError):
    """An optional extra is not installed; the message names the ``pip install`` to run."""


class EmbedderUnavailableError(MissingExtraError):
    """The optional embedding extra is not installed."""


class RetrievalError(RagGuardError, RuntimeError):
    """The retriever a guard wraps (or another ``step`` that handles unchecked nodes, such as a
    postprocessor after the guard) raised. The message names only the original exception's
    type: its text could quote nodes the guard has not checked, and it
    would reach traces, event handlers and logs. Nothing is returned (fail closed)."""

    def __init__(self, source: str, failed: str, step: str = "the inner retriever") -> None:
        self.failed = failed
        super().__init__(
            f"{source}: {step} raised {failed}; its message is withheld because it may quote "
            f"unchecked nodes (call {step} directly to debug it)"
        )


class QueryRejected(RagGuardError):  # noqa: N818 - the name states the outcome, as in the design
    """The domain guard rejected the query; ``decision.refusal`` is the text to show."""

    def __init__(self, decision: QueryDecision) -> None:
        self.decision = decision
        super().__init__(decision.refusal or decision.reason)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the decision it was raised with."""
        return (type(self), (self.decision,))


class ContextBlocked(RagGuardError):  # noqa: N818
    """A block rule fired and the policy says ``on_block: raise``; ``result`` is the audit."""

    def __init__(self, result: GuardResult) -> None:
        self.result = result
        names = ", ".join(v.rule for v in result.violations)
        super().__init__(f"combination rule(s) blocked the retrieved context: {names}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the result it was raised with (Ray, multiprocessing and Celery carry
        errors by pickle)."""
        return (type(self), (self.result,))


class UnparseableReplyError(RagGuardError, ValueError):
    """An LLM classifier's reply is not the JSON object the schema asks for."""


class RayEngineError(RagGuardError):
    """Ray could not be started or reached, or a run failed after its retries."""


class RayUnavailableError(RayEngineError, ImportError):
    """The ``ray`` extra is not installed."""


class Unordered(RagGuardError):  # noqa: N818 - a state of two values, caught by the merge
    """Two values of a policy setting neither of which is stricter than the other (the merge
    turns it into a PolicyError naming the setting and both policies)."""
