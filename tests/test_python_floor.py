"""The declared Python floor is the one the resolved dependencies need: the highest
``Requires-Python`` floor over every installed distribution that the package and its extras
(``all``) pull in, and the interpreter the tests run on meets it."""

from __future__ import annotations

import re
import sys

import pytest
from dependency_support import closure, pyproject
from packaging.specifiers import SpecifierSet

pytestmark = pytest.mark.unit


def floor_of(specifier: str) -> tuple[int, ...]:
    """The lowest version a ``Requires-Python`` specifier admits, as a tuple (0 for none)."""
    lows = []
    for clause in SpecifierSet(specifier):
        parts = tuple(int(p) for p in re.findall(r"\d+", clause.version))
        if clause.operator in {">=", "~=", "=="}:
            lows.append(parts)
        elif clause.operator == ">":
            lows.append((*parts[:-1], parts[-1] + 1))
    return max(lows, default=(0,))


def test_the_declared_floor_is_the_highest_floor_of_the_resolved_packages() -> None:
    """``requires-python`` is exactly the highest floor the installed dependencies declare."""
    declared = floor_of(pyproject()["project"]["requires-python"])
    needed = closure("all")
    assert len(needed) > 50  # the walk reached the whole tree, not the first level only
    highest = max(floor_of(spec)[:2] for spec in needed.values())
    holders = sorted(n for n, spec in needed.items() if floor_of(spec)[:2] == highest)
    assert declared[:2] == highest, f"the dependencies need Python {highest}: {holders[:5]}"


def test_the_tests_run_on_an_interpreter_the_floor_admits() -> None:
    """This interpreter meets the declared floor, and mypy checks the floor's version."""
    data = pyproject()
    declared = data["project"]["requires-python"]
    assert SpecifierSet(declared).contains(".".join(map(str, sys.version_info[:3])))
    floor = ".".join(map(str, floor_of(declared)[:2]))
    assert data["tool"]["mypy"]["python_version"] == floor


def test_floor_of_reads_the_lowest_admitted_version() -> None:
    """The floor of a specifier is its lowest admitted version."""
    assert floor_of(">=3.11") == (3, 11)
    assert floor_of("<4.0.0,>=3.11.0") == (3, 11, 0)
    assert floor_of(">3.9") == (3, 10)
    assert floor_of("") == (0,)
