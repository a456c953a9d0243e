"""The package's imports run one way: core, policy, classify, guards, engine, adapters, CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rag_guard_integrations

pytestmark = pytest.mark.unit

PACKAGE = "rag_guard_integrations"
ROOT = Path(rag_guard_integrations.__file__).parent
# Lowest first. A module may import from its own layer or a lower one; names are relative to the
# package and the longest prefix decides ("" is the package's own __init__).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("policy", "embeddings", "data"),
    ("classify",),
    # access sources sit beside the guards: the access stage asks them
    ("guards", "authz"),
    # lint checks a policy against what the classifiers and guards provide
    ("engine", "policy.lint"),
    ("", "notebook", "vector_index", "authz.case_runs", "authz.evaluation"),
    ("langchain", "llama_index", "scale", "scale_worker"),
    ("evaluation",),
    ("cli",),
)
FRAMEWORKS = ("langchain", "llama_index")


def _module_names() -> dict[str, Path]:
    names = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


MODULES = _module_names()


def _target(dotted: str) -> str | None:
    """The package module ``dotted`` names (relative), or None outside the package."""
    if dotted != PACKAGE and not dotted.startswith(PACKAGE + "."):
        return None
    relative = dotted[len(PACKAGE) + 1 :]
    while relative not in MODULES:
        relative = relative.rpartition(".")[0]
    return relative


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> list[tuple[str, bool]]:
    """``(imported module, type_only)`` for every import in the file, at any depth."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for item in child.body:
                    visit_one(item, True)
                for item in child.orelse:
                    visit_one(item, type_only)
            else:
                visit_one(child, type_only)

    def visit_one(node: ast.AST, type_only: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, type_only) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from pkg import submodule`` imports the submodule
            found.extend((f"{node.module}.{alias.name}", type_only) for alias in node.names)
        visit(node, type_only)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def _edges(*, runtime_only: bool) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for dotted, type_only in _imports(path):
            target = _target(dotted)
            if target is not None and target != name and not (runtime_only and type_only):
                edges[name].add(target)
    return edges


def _layer(module: str) -> int:
    best, level = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or (prefix and module.startswith(prefix + "."))
            if matches and len(prefix) > best:
                best, level = len(prefix), index
    assert level >= 0, f"module {module!r} has no layer; add it to LAYERS"
    return level


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := walk(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := walk(node)) is not None:
            return found
    return None


def test_every_module_has_a_layer() -> None:
    """Each module of the package falls in one of the declared layers."""
    for module in MODULES:
        _layer(module)


def test_no_import_cycle() -> None:
    """No chain of runtime imports (top level or inside functions) leads back to its start."""
    assert _cycle(_edges(runtime_only=True)) is None


def test_imports_only_go_down_the_layers() -> None:
    """No module imports from a higher layer, type-only imports included."""
    upward = [
        f"{module} ({_layer(module)}) -> {target} ({_layer(target)})"
        for module, targets in _edges(runtime_only=False).items()
        for target in sorted(targets)
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_adapters_do_not_import_each_other() -> None:
    """The LangChain and LlamaIndex adapters each stand on the engine alone."""
    edges = _edges(runtime_only=False)
    crossing = [
        f"{module} -> {target}"
        for module, targets in edges.items()
        for target in targets
        for mine in FRAMEWORKS
        for other in FRAMEWORKS
        if mine != other and module.startswith(mine) and target.startswith(other)
    ]
    assert crossing == []


def test_cycle_finder_sees_a_cycle() -> None:
    """The walk reports a cycle when there is one (so the test above could fail)."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
