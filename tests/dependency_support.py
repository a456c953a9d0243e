"""What the package's declared dependencies resolve to here: pyproject's extras, and the tree of
installed distributions a set of extras pulls in (markers evaluated on this interpreter)."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, distribution, distributions
from pathlib import Path
from typing import Any

import tomllib
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
SELF = "rag-guard-integrations"


def pyproject() -> dict[str, Any]:
    """The parsed pyproject.toml."""
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def normalised(name: str) -> str:
    """A distribution name in its normal form (lower case, dashes)."""
    return name.lower().replace("_", "-").replace(".", "-")


def requirements(*extras: str) -> list[Requirement]:
    """The core dependencies and every requirement of ``extras``, self-references expanded."""
    project = pyproject()["project"]
    declared: dict[str, list[str]] = project["optional-dependencies"]
    found = [Requirement(r) for r in project["dependencies"]]
    pending, seen = list(extras), set()
    while pending:
        extra = pending.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for line in declared[extra]:
            requirement = Requirement(line)
            if normalised(requirement.name) == SELF:
                pending.extend(requirement.extras)
            else:
                found.append(requirement)
    return found


def closure(*extras: str) -> dict[str, str]:
    """Installed distribution name -> its ``Requires-Python``, for every distribution the core
    and ``extras`` pull in."""
    found: dict[str, str] = {}
    visited: set[tuple[str, frozenset[str]]] = set()
    pending = [(r, frozenset(r.extras)) for r in requirements(*extras)]
    while pending:
        requirement, wanted = pending.pop()
        name = normalised(requirement.name)
        if (name, wanted) in visited:
            continue
        visited.add((name, wanted))
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            continue  # a requirement of another platform or an unused marker branch
        found[name] = dist.metadata.get("Requires-Python") or ""
        environments = [{"extra": e} for e in wanted] or [{"extra": ""}]
        for line in dist.requires or ():
            child = Requirement(line)
            if child.marker is None or any(child.marker.evaluate(env) for env in environments):
                pending.append((child, frozenset(child.extras)))
    return found


@cache
def owners() -> dict[str, str]:
    """Installed file path -> the normalised name of the distribution that installed it."""
    found: dict[str, str] = {}
    for dist in distributions():
        name = normalised(dist.metadata["Name"])
        for file in dist.files or ():
            found[str(dist.locate_file(file))] = name
    return found


def mirror(allowed: set[str], target: Path) -> int:
    """Lay out in ``target`` the installed files of the distributions in ``allowed`` (as
    symlinks), a site folder holding those distributions and no other; returns the count."""
    count = 0
    for dist in distributions():
        if normalised(dist.metadata["Name"]) not in allowed:
            continue
        count += 1
        for file in dist.files or ():
            if ".." in file.parts:
                continue  # a script or data file outside the site folder
            source = Path(str(dist.locate_file(file)))
            if source.exists():
                link = target / file
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.exists():
                    link.symlink_to(source)
    return count
