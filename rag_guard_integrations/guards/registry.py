"""The stage registry: each guards module lists its per-chunk stages in ``STAGES``; the engine
builds, for a policy, the checks of the stages whose section the policy configures.

A new per-chunk guard is one module here (a check class plus ``STAGES``) and its section in
the policy schema; nothing else names it.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from rag_guard_integrations.core.stage import ChunkCheck
    from rag_guard_integrations.policy.schema import Policy


@dataclass(frozen=True, slots=True)
class Stage:
    """One per-chunk stage: ``build`` returns its check for a policy, or None when the policy
    does not configure it; stages run by ascending ``order``.

    Example:
        >>> [stage.name for stage in builtin_stages()]
        ['access', 'clause', 'recency', 'hint']
    """

    name: str
    order: int
    build: Callable[[Policy], ChunkCheck | None]


@lru_cache(maxsize=1)
def builtin_stages() -> tuple[Stage, ...]:
    """The stages every module of the guards package declares, in running order."""
    package = importlib.import_module(__package__ or "rag_guard_integrations.guards")
    found: list[Stage] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.extend(getattr(module, "STAGES", ()))
    return tuple(sorted(found, key=lambda stage: stage.order))


def policy_checks(policy: Policy) -> tuple[ChunkCheck, ...]:
    """The per-chunk checks ``policy`` configures, in running order."""
    return tuple(check for stage in builtin_stages() if (check := stage.build(policy)) is not None)
