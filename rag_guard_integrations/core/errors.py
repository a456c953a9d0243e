"""The error tree: one base class to catch, a few documented subclasses beneath it."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    """A query, chunk list or access context handed to a guard has the wrong type."""


class ChunkError(InputError):
    """A chunk or the chunk list handed to a guard has the wrong shape."""


class ClassifierError(RagGuardError):
    """A classifier could not label a chunk (the guard turns this into ``unclassified``)."""


class EmbedderUnavailableError(RagGuardError, ImportError):
    """The optional embedding extra is not installed."""


class QueryRejected(RagGuardError):  # noqa: N818 - the name states the outcome, as in the design
    """The domain guard rejected the query; ``decision.refusal`` is the text to show."""

    def __init__(self, decision: QueryDecision) -> None:
        self.decision = decision
        super().__init__(decision.refusal or decision.reason)


class ContextBlocked(RagGuardError):  # noqa: N818
    """A block rule fired and the policy says ``on_block: raise``; ``result`` is the audit."""

    def __init__(self, result: GuardResult) -> None:
        self.result = result
        names = ", ".join(v.rule for v in result.violations)
        super().__init__(f"combination rule(s) blocked the retrieved context: {names}")
