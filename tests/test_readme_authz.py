"""The README's access-source section runs as written: its python blocks, in order, in one
namespace, against the real engines (an embedded SpiceDB included)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from authz_support import spicedb_library

pytestmark = pytest.mark.unit

README = Path(__file__).resolve().parents[1] / "README.md"


def authz_blocks() -> list[str]:
    """The python blocks between the README's authz start and end markers."""
    text = README.read_text(encoding="utf-8")
    section = text.split("<!-- authz:start -->", 1)[1].split("<!-- authz:end -->", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


@pytest.fixture(scope="module")
def namespace() -> dict[str, Any]:
    """What the section's blocks leave behind after running them all."""
    spicedb_library()
    names: dict[str, Any] = {}
    for block in authz_blocks():
        exec(compile(block, str(README), "exec"), names)
    return names


def test_the_section_has_a_block_per_engine() -> None:
    """The shared set-up, then Cedar, Casbin and SpiceDB, each wired through from_policy."""
    blocks = authz_blocks()
    assert len(blocks) == 4
    for engine in ("CedarAccess", "CasbinAccess", "SpiceDBAccess"):
        assert any(engine in b and "access_source=" in b for b in blocks)


def test_each_engine_lets_ana_see_the_design_document_only(namespace: dict[str, Any]) -> None:
    """Through her nested team Ana sees design and not payroll, under every engine."""
    for name in ("result", "casbin_result", "spicedb_result"):
        result = namespace[name]
        assert [c.metadata["doc_id"] for c in result.allowed] == ["design"], name
        assert result.denied[0].stage == "authz"
        assert result.access_source.token


def test_the_scope_is_pushed_down_and_a_revocation_is_seen_at_once(
    namespace: dict[str, Any],
) -> None:
    """The SpiceDB scope reaches the prefilter; after Cedar's update Ana sees nothing."""
    assert namespace["spicedb_scope"]["doc_id"].values == {"design"}
    assert namespace["cedar_after"].allowed == []
