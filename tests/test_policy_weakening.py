"""Settings that switch checks off (``mode: shadow``, ``recognizers: with_classify``) cover the
policy that sets them and what it extends, never a policy merged beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from rag_guard_integrations import Guard, PolicyError, load_policy

if TYPE_CHECKING:
    from pathlib import Path

TENANT = "version: 1\nname: tenant\naccess: {attributes: [tenant]}\n"
SECRET = {"text": "tenant b plans", "metadata": {"tenant": "b"}}

pytestmark = pytest.mark.unit


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "setting",
    ["mode: shadow", "recognizers: with_classify"],
)
def test_a_weakening_file_merged_beside_a_builtin_is_refused(tmp_path: Path, setting: str) -> None:
    """default + a file that only sets a weakening setting is a one-line PolicyError."""
    trial = write(tmp_path, "trial", f"version: 1\nname: trial\n{setting}\n")
    key, value = setting.split(": ")
    for refs in (("default", trial), (trial, "default")):
        with pytest.raises(PolicyError, match=f"sets {key}: {value}, which would also apply to"):
            load_policy(*refs)


def test_a_shadow_file_cannot_switch_off_another_files_access_check(tmp_path: Path) -> None:
    """An access policy merged with a shadow one is refused instead of enforcing nothing."""
    tenant = write(tmp_path, "tenant", TENANT)
    trial = write(tmp_path, "trial", "version: 1\nname: trial\nmode: shadow\n"
                  "access: {attributes: [region]}\n")  # fmt: skip
    with pytest.raises(PolicyError, match=r"tenant\.yaml, a policy merged beside it"):
        load_policy(tenant, trial)


def test_a_policy_extending_a_shadow_policy_is_refused(tmp_path: Path) -> None:
    """A child that adds checks to a shadow parent without saying shadow itself is refused."""
    write(tmp_path, "parent", "version: 1\nname: parent\nmode: shadow\n")
    child = write(tmp_path, "child", f"{TENANT}extends: [parent.yaml]\n")
    with pytest.raises(PolicyError, match=r"child\.yaml, a policy merged beside it"):
        load_policy(child)


def test_shadow_set_in_the_extending_policy_covers_what_it_extends(tmp_path: Path) -> None:
    """The documented form still works: a policy that extends others and sets mode: shadow
    records everything and withholds nothing."""
    write(tmp_path, "tenant", TENANT)
    trial = write(tmp_path, "trial", "version: 1\nname: trial\nextends: [default, tenant.yaml]\n"
                  "mode: shadow\n")  # fmt: skip
    result = Guard.from_policy(trial).check("q", [SECRET], access={"tenant": ["a"]})
    assert [c.text for c in result.allowed] == ["tenant b plans"]
    assert result.shadow is not None
    assert result.shadow.allowed == []


def test_enforcing_merges_are_unchanged(tmp_path: Path) -> None:
    """Merging enforcing policies still enforces every part."""
    tenant = write(tmp_path, "tenant", TENANT)
    result = Guard.from_policy("default", tenant).check("q", [SECRET], access={"tenant": ["a"]})
    assert result.allowed == []
