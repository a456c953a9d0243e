"""Every error the package raises on purpose is a RagGuardError: the source is walked, not run."""

from __future__ import annotations

import ast
import builtins
import pickle
from pathlib import Path

import pytest

import rag_guard_integrations
from rag_guard_integrations import ContextBlocked, Guard, QueryRejected, parse_policy
from rag_guard_integrations.core.errors import RagGuardError

pytestmark = pytest.mark.unit

ROOT = Path(rag_guard_integrations.__file__).parent
BASE = RagGuardError.__name__
# (module path, enclosing function, builtin raised): the places where Python's own protocol or
# a bug, not bad input, is what is reported. Nothing here can reach a user for a bad value.
ALLOWED = {
    # PEP 562: a module ``__getattr__`` must raise AttributeError for an unknown name.
    ("langchain/__init__.py", "__getattr__", "AttributeError"),
    ("authz/__init__.py", "__getattr__", "AttributeError"),
    # The sequence protocol: ``for`` and ``list()`` over the decisions rely on IndexError.
    ("core/decisions.py", "__getitem__", "IndexError"),
    # An import-time invariant (a fast constructor's class has the slots it fills): a failure
    # is a bug in the package.
    ("core/records.py", "mutable_twin", "TypeError"),
    # An immutable object refuses assignment the way a frozen dataclass does.
    ("core/access.py", "__setattr__", "AttributeError"),
    # Methods a subclass must provide, by Python's convention.
    ("classify/vocabulary.py", "_use", "NotImplementedError"),
    ("classify/vocabulary.py", "classify_many", "NotImplementedError"),
    # BaseTool's abstract sync path: a screened tool only ever runs through invoke.
    ("langchain/vetting.py", "_run", "NotImplementedError"),
    # Carries a model's StopIteration out of a worker thread (a Future cannot); the classifier's
    # fail-closed handler records it as a failed classification, so it never leaves the class.
    ("classify/llm.py", "_invoke", "RuntimeError"),
    # A model answering a different number of results than texts: the NER classifier's
    # fail-closed handler records the batch as unclassified, so it never leaves the class.
    ("classify/ner.py", "_per_text", "ValueError"),
    # A path runner returning the wrong number of observations is a bug in the harness: it
    # should show its traceback, not pass as a one-line input error.
    ("evaluation/prompt/harness.py", "run_eval", "RuntimeError"),
}


def _raises() -> list[tuple[str, str, str]]:
    """``(module path, enclosing function, raised class name)`` for every ``raise X``."""
    found: list[tuple[str, str, str]] = []

    def visit(node: ast.AST, path: str, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, path, child.name)
                continue
            if isinstance(child, ast.Raise) and child.exc is not None:
                target = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
                if isinstance(target, ast.Name | ast.Attribute):
                    name = target.id if isinstance(target, ast.Name) else target.attr
                    if name[:1].isupper():  # ``raise error`` re-raises a caught object
                        found.append((path, function, name))
            visit(child, path, function)

    for file in sorted(ROOT.rglob("*.py")):
        visit(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(ROOT).as_posix(), "")
    return found


def _package_error_bases() -> dict[str, list[str]]:
    """Each class the package defines, by name, with the names of its bases."""
    bases: dict[str, list[str]] = {}
    for file in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [ast.unparse(base).rpartition(".")[2] for base in node.bases]
    return bases


def _derives_from_base(name: str, bases: dict[str, list[str]]) -> bool:
    return name == BASE or any(_derives_from_base(b, bases) for b in bases.get(name, []))


def _is_builtin_exception(name: str) -> bool:
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def test_no_builtin_exception_is_raised_outside_the_allowed_places() -> None:
    """Every ``raise`` of a builtin exception is one of the justified protocol or bug cases."""
    stray = [
        f"{path} {function or '<module>'}: raise {name}"
        for path, function, name in _raises()
        if _is_builtin_exception(name) and (path, function, name) not in ALLOWED
    ]
    assert stray == []


def test_every_package_error_raised_derives_from_the_base() -> None:
    """Each non-builtin class raised is defined in the package and is a RagGuardError."""
    bases = _package_error_bases()
    outside = sorted(
        {
            f"{path}: {name}"
            for path, _, name in _raises()
            if not _is_builtin_exception(name) and not _derives_from_base(name, bases)
        }
    )
    assert outside == []


def test_allowed_places_still_exist() -> None:
    """Each allowed entry still matches a raise, so the list cannot keep stale exceptions."""
    assert set(_raises()) >= ALLOWED


def test_walk_sees_a_builtin_raise() -> None:
    """The walk finds a builtin raise inside a method (so the first test could fail)."""
    found = [entry for entry in _raises() if entry[0] == "core/access.py"]
    assert ("core/access.py", "__setattr__", "AttributeError") in found


def test_every_error_class_is_defined_in_core_errors() -> None:
    """The package defines its exception classes in one module, ``core/errors.py``."""
    elsewhere = sorted(
        f"{path.relative_to(ROOT)}: {node.name}"
        for path in ROOT.rglob("*.py")
        if path != ROOT / "core" / "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any(
            isinstance(base, ast.Name) and base.id.endswith(("Error", "Exception"))
            for base in node.bases
        )
    )
    assert elsewhere == []


def test_the_guards_verdict_errors_cross_processes_by_pickle() -> None:
    """``ContextBlocked`` and ``QueryRejected`` pickle with what they were raised with (Ray,
    multiprocessing and Celery carry errors by pickle)."""
    raising = Guard.from_policy("default", parse_policy("version: 1\nname: r\non_block: raise\n"))
    with pytest.raises(ContextBlocked) as blocked:
        raising.check("q", [{"text": "Customer Nadia Ferreira paid with 4111 1111 1111 1111."}])
    again = pickle.loads(pickle.dumps(blocked.value))
    assert str(again) == str(blocked.value)
    assert again.result.query == blocked.value.result.query
    refused = Guard.from_policy("bis").check("best pizza in town", []).query
    rejected = pickle.loads(pickle.dumps(QueryRejected(refused)))
    assert rejected.decision == refused
