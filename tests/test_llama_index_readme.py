"""The README's LlamaIndex section runs as written: its python blocks, in order, in one
namespace, offline (real MiniLM embeddings, the stand-in LLMs it names)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
EXPECTED = re.compile(r"^print\((.*)\)\s+# (.+)$")


def section(text: str) -> str:
    """The README's LlamaIndex section, between its start and end markers."""
    return text.split("<!-- llama_index:start", 1)[1].split("<!-- llama_index:end -->", 1)[0]


def blocks() -> list[str]:
    return BLOCK.findall(section(README.read_text(encoding="utf-8")))


def test_the_section_starts_with_the_guarded_query_engine() -> None:
    """The first block shows the path that works: guarded_query_engine."""
    first = blocks()[0]
    assert "guarded_query_engine(" in first
    assert "as_query_engine(" not in first


def test_every_python_block_runs_as_written() -> None:
    """The blocks run in order and each ``print(...)  # expected`` line prints what it says
    (a comment after a colon is an explanation, not part of the output)."""
    code = blocks()
    assert len(code) >= 6
    namespace: dict[str, object] = {"__name__": "readme"}
    for number, source in enumerate(code):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(source, f"README.md LlamaIndex block {number}", "exec"), namespace)
        printed = out.getvalue().splitlines()
        expected = [
            m.group(2).split(": ")[0]
            for line in source.splitlines()
            if (m := EXPECTED.match(line.strip()))
        ]
        for want in expected:
            assert any(want in line for line in printed), (number, want, printed)
