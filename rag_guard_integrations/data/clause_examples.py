"""Example sentences of contract clauses: the training text of the clause guard's semantic
fingerprint (``data/clauses/examples.yaml``, or a file of the same form)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rag_guard_integrations.core.errors import PolicyError

EXAMPLES_DIR = Path(__file__).resolve().parent / "clauses"
BUNDLED_EXAMPLES = "contracts"
"""The name of the bundled example set (``data/clauses/examples.yaml``)."""


@dataclass(frozen=True, slots=True)
class ExampleSet:
    """Labelled example sentences: ``labels[i]`` are the clause labels ``texts[i]`` is.

    Example:
        >>> examples = load_examples("contracts")
        >>> "GOVERNING_LAW" in examples.label_names
        True
    """

    name: str
    texts: tuple[str, ...]
    labels: tuple[frozenset[str], ...]
    sha256: str

    @property
    def label_names(self) -> frozenset[str]:
        """Every label an example carries."""
        return frozenset().union(*self.labels)


def examples_path(ref: str) -> Path:
    """The file of an example set: the bundled name ``contracts``, or a path to a YAML file."""
    if ref == BUNDLED_EXAMPLES:
        return EXAMPLES_DIR / "examples.yaml"
    path = Path(ref)
    if path.suffix not in {".yaml", ".yml"}:
        raise PolicyError(
            f"examples {ref!r} is neither the bundled set {BUNDLED_EXAMPLES!r} nor a .yaml path"
        )
    return path


@lru_cache(maxsize=8)
def load_examples(ref: str) -> ExampleSet:
    """Read and check the example set ``ref`` (see :func:`examples_path`), once per process.

    The file holds ``examples: {label: [sentence, ...]}`` and optionally ``shared: [{labels:
    [...], texts: [...]}]`` for sentences that are several clauses at once.
    """
    path = examples_path(ref)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise PolicyError(f"examples {ref!r}: cannot read {path} ({error.strerror})") from None
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as error:
        raise PolicyError(f"examples {ref!r}: {path} is not valid YAML ({error})") from None
    texts: list[str] = []
    labels: list[frozenset[str]] = []
    for group, names, items in _groups(data, path):
        for index, text in enumerate(items):
            if not isinstance(text, str) or not text.strip():
                raise PolicyError(f"{path}: {group}[{index}] is not a sentence; write one")
            texts.append(text)
            labels.append(names)
    if len(set(labels)) < 2:
        raise PolicyError(f"{path}: examples of at least two labels are needed to tell them apart")
    return ExampleSet(ref, tuple(texts), tuple(labels), hashlib.sha256(raw).hexdigest())


def _groups(data: Any, path: Path) -> list[tuple[str, frozenset[str], list[Any]]]:
    """``(where, labels, sentences)`` of every group of the file, checked for shape."""
    if not isinstance(data, dict) or not isinstance(data.get("examples"), dict):
        raise PolicyError(f"{path}: needs a mapping 'examples: {{label: [sentences]}}'")
    unknown = set(data) - {"version", "examples", "shared"}
    if unknown:
        raise PolicyError(f"{path}: unknown keys {sorted(unknown)}; use examples and shared")
    groups = [(f"examples.{label}", frozenset([str(label)]), items)
              for label, items in data["examples"].items()]  # fmt: skip
    for index, shared in enumerate(data.get("shared") or []):
        names = shared.get("labels") if isinstance(shared, dict) else None
        if not isinstance(names, list) or len(names) < 2:
            raise PolicyError(f"{path}: shared[{index}].labels must list two or more labels")
        groups.append((f"shared[{index}].texts", frozenset(map(str, names)), shared.get("texts")))
    for where, _, items in groups:
        if not isinstance(items, list) or not items:
            raise PolicyError(f"{path}: {where} must be a non-empty list of sentences")
    return groups
