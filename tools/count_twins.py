"""Count the sync/async twin pairs of the package: code written twice, once per path.

Run ``python tools/count_twins.py [ROOT] [--list]`` (ROOT defaults to the package). A pair is a
``def NAME`` and an ``async def`` named ``aNAME``, ``_aREST`` (for ``_REST``) or
``NAME_async`` in the same scope (module, class or function). A pair whose bodies are both at
most one statement (docstring aside) is a *driver*: a framework's sync and async entry points
handing one flow to :func:`~rag_guard_integrations.adapters.drive.run` and ``arun``. Any other
pair is a *logic twin*, the same steps written twice. Lines count both functions.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rag_guard_integrations"
Function = ast.FunctionDef | ast.AsyncFunctionDef


def _twin_names(name: str) -> list[str]:
    names = [f"a{name}", f"{name}_async"]
    if name.startswith("_"):
        names.append(f"_a{name[1:]}")
    return names


def _statements(function: Function) -> int:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return len(body)


def _lines(function: Function) -> int:
    return (function.end_lineno or function.lineno) - function.lineno + 1


def pairs(root: Path) -> list[tuple[str, str, int, str]]:
    """Per pair: ``(path, sync name, lines of both, "driver" or "logic")``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.Module | ast.ClassDef | Function)]
        for scope in scopes:
            body = scope.body
            sync = {n.name: n for n in body if isinstance(n, ast.FunctionDef)}
            twins = {n.name: n for n in body if isinstance(n, ast.AsyncFunctionDef)}
            for name, function in sync.items():
                twin = next((twins[t] for t in _twin_names(name) if t in twins), None)
                if twin is None:
                    continue
                thin = _statements(function) <= 1 and _statements(twin) <= 1
                kind = "driver" if thin else "logic"
                lines = _lines(function) + _lines(twin)
                found.append((str(path.relative_to(root)), name, lines, kind))
    return found


def main(argv: list[str]) -> None:
    """Print the totals, per top-level folder, and with ``--list`` every pair."""
    listed = "--list" in argv
    roots = [a for a in argv if a != "--list"]
    root = Path(roots[0]) if roots else PACKAGE
    found = pairs(root)
    kinds = Counter(kind for *_, kind in found)
    print(
        f"{len(found)} pairs, {sum(p[2] for p in found)} lines: {kinds['logic']} logic twins "
        f"({sum(p[2] for p in found if p[3] == 'logic')} lines), {kinds['driver']} drivers"
    )
    folders = sorted({p[0].split("/")[0] for p in found})
    for folder in folders:
        mine = [p for p in found if p[0].split("/")[0] == folder]
        logic = [p for p in mine if p[3] == "logic"]
        print(f"  {folder}: {len(mine)} pairs, {len(logic)} logic twins")
    if listed:
        for path, name, lines, kind in found:
            print(f"    {path} {name} {lines} {kind}")


if __name__ == "__main__":
    main(sys.argv[1:])
