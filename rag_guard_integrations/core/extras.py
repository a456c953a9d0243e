"""Optional packages: an import that needs an extra fails with a :class:`MissingExtraError`
naming the ``pip install`` that brings it, never a bare ``ModuleNotFoundError``."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

from rag_guard_integrations.core.errors import MissingExtraError

if TYPE_CHECKING:
    from collections.abc import Iterator

PACKAGE = "rag_guard_integrations"


@contextmanager
def needs_extra(extra: str, purpose: str) -> Iterator[None]:
    r"""Turn a missing third-party module inside the block into a :class:`MissingExtraError`.

    A module of this package that fails to import is a defect, not a missing extra: its error
    goes on as it is.

    Example:
        >>> try:
        ...     with needs_extra("qdrant", "Qdrant pushdown"):
        ...         import qdrant_not_here
        ... except MissingExtraError as error:
        ...     print(str(error).replace(": ", ":\n"))
        Qdrant pushdown needs the 'qdrant_not_here' module:
        pip install 'rag-guard-integrations[qdrant]'
    """
    try:
        yield
    except ModuleNotFoundError as error:
        missing = error.name or "a module"
        if missing == PACKAGE or missing.startswith(PACKAGE + "."):
            raise
        raise MissingExtraError(
            f"{purpose} needs the {missing!r} module: pip install 'rag-guard-integrations[{extra}]'"
        ) from error
