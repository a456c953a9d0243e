"""Griffe extension for the API page: the package's docstrings head their doctests
``Example:``, which the Google parser reads as a note; as ``Examples:`` they render as code."""

from __future__ import annotations

import re
from typing import Any

import griffe

HEADING = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Reads each ``Example:`` section of a docstring as an ``Examples:`` section."""

    def on_instance(self, *, obj: griffe.Object, **_: Any) -> None:
        """Rename the section before the docstring is parsed."""
        if obj.docstring is not None:
            obj.docstring.value = HEADING.sub(r"\1Examples:", obj.docstring.value)
