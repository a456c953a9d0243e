"""The generators under ``tools/`` (a folder of scripts, no package), loaded by path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def tool_module(name: str) -> ModuleType:
    """The module ``tools/NAME.py``, freshly loaded."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
