"""Load policies: YAML safely parsed, validated, ``extends`` merged, errors located by line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from rag_guard_integrations.core.errors import PolicyError, PolicyNotFoundError
from rag_guard_integrations.policy.messages import describe_errors
from rag_guard_integrations.policy.schema import CHECKING_SECTIONS, Policy

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

PolicyRef = Policy | str | Path
"""What every ``from_policy`` and :func:`load_policy` take: a Policy, a built-in name or a path."""
MAX_YAML_NODES = 100_000
_BUILTIN_POLICIES = Path(__file__).resolve().parent.parent / "policies"


def builtin_dir() -> Path:
    """The folder of built-in policies, shipped inside the package."""
    return _BUILTIN_POLICIES


def builtin_names() -> list[str]:
    """Names of the built-in policies (``default``, ``contracts``, ...)."""
    return sorted(p.stem for p in builtin_dir().glob("*.yaml"))


def is_path(ref: str) -> bool:
    """A bare word names a built-in; anything with a ``/`` or a YAML suffix is a path."""
    return "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))


def resolve(ref: str | Path, base: Path | None = None) -> Path:
    """Find the file a policy reference names, or raise PolicyNotFoundError."""
    if not isinstance(ref, str | Path):
        raise PolicyError(
            f"policy reference {ref!r} is a {type(ref).__name__}; pass a built-in name or a path"
        )
    if isinstance(ref, Path) or is_path(ref):
        path = Path(ref)
        if not path.is_absolute() and base is not None:
            path = base / path
        if path.is_dir():
            raise PolicyNotFoundError(f"{ref} is a folder; name the policy's YAML file in it")
        if not path.is_file():
            raise PolicyNotFoundError(f"{ref}: no such policy file; check the path")
        return path.resolve()
    path = builtin_dir() / f"{ref}.yaml"
    if not path.is_file():
        names = ", ".join(builtin_names())
        raise PolicyNotFoundError(
            f"{ref!r} is not a built-in policy; use one of {names} or a path to a YAML file"
        )
    return path


# A file's ancestors (the sources it extends, transitively), kept beside its data for _merge.
_ANCESTORS = "__ancestors__"
# Settings whose value switches checks off, and that value.
_WEAKENING = (("mode", "shadow"), ("recognizers", "with_classify"))
_CHECKING_KEYS = (*CHECKING_SECTIONS, "classifiers")
Seen = dict[Path, frozenset[str]]
"""Files already expanded, each with its ancestors."""


def load_policy(*refs: PolicyRef) -> Policy:
    """Load and merge one or more policies (loaded ones, built-in names or paths) into one
    :class:`Policy`; a single loaded policy comes back as it is.

    Example:
        >>> policy = load_policy("contracts", "default")
        >>> "TERMINATION_NOTICE" in policy.clauses
        True
        >>> load_policy(policy) is policy
        True
    """
    if not refs:
        raise PolicyError("load_policy needs at least one built-in name or path")
    if len(refs) == 1 and isinstance(refs[0], Policy):
        return refs[0]
    files: list[tuple[str, dict[str, Any]]] = []
    seen: Seen = {}
    names = []
    for ref in refs:
        if isinstance(ref, Policy):
            names.append(ref.name or "policy")
            files.extend(_from_loaded(ref, seen))
            continue
        expanded = list(_expand(resolve(ref), seen, ()))
        if expanded:
            source, data = expanded[-1]
            names.append(str(data.get("name") or _stem(source)))
        files.extend(expanded)
    return _merge(files, "+".join(names))


def _from_loaded(policy: Policy, seen: Seen) -> list[tuple[str, dict[str, Any]]]:
    """A loaded policy as merge input: its files read again when it came from files (so that a
    shared ``extends`` is merged once), else its fields."""
    paths = [Path(source) for source in policy.sources]
    if paths and all(path.is_file() for path in paths):
        return [item for path in paths for item in _expand(path.resolve(), seen, ())]
    fields = policy.model_dump(exclude_defaults=True, exclude={"name", "extends"})
    return [(" + ".join(policy.sources) or policy.name or "policy", fields)]


def parse_policy(text: str, source: str = "<string>") -> Policy:
    """Validate a policy given as YAML text (its ``extends`` resolve from the working folder)."""
    if not isinstance(text, str):
        raise PolicyError(
            f"{source}: the policy text is a {type(text).__name__}; pass YAML as a str "
            "(load_policy reads a file)"
        )
    data = _parse(text, source)
    files: list[tuple[str, dict[str, Any]]] = []
    seen: Seen = {}
    ancestors: set[str] = set()
    for ref in data.get("extends") or []:
        parent = resolve(ref, Path.cwd())
        files.extend(_expand(parent, seen, ()))
        ancestors |= {str(parent), *seen[parent]}
    data[_ANCESTORS] = frozenset(ancestors)
    files.append((source, data))
    return _merge(files, str(data.get("name") or source))


def _expand(
    path: Path, seen: Seen, stack: tuple[Path, ...]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(source, data)`` for a file's extends (depth first) and then the file itself."""
    if path in stack:
        chain = " -> ".join(p.name for p in (*stack, path))
        raise PolicyError(f"{path}: extends cycle {chain}; remove one of these extends")
    if path in seen:
        return
    seen[path] = frozenset()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyError(f"{path}: cannot read the policy ({error}); check the file") from None
    data = _parse(text, str(path))
    extends = data.get("extends") or []
    if not isinstance(extends, list) or not all(isinstance(e, str) for e in extends):
        raise PolicyError(f"{path}: extends must be a list of names or paths")
    ancestors: set[str] = set()
    for ref in extends:
        parent = resolve(ref, path.parent)
        yield from _expand(parent, seen, (*stack, path))
        ancestors |= {str(parent), *seen[parent]}
    seen[path] = data[_ANCESTORS] = frozenset(ancestors)
    yield str(path), data


def _parse(text: str, source: str) -> dict[str, Any]:
    """Parse YAML with line marks checked first: size, alias bombs, duplicate keys, then types."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is None:
            raise PolicyError(f"{source}: the policy is empty; add at least 'version: 1'")
        _check_nodes(root, source)
        # Composing accepts any tag; building values refuses unsafe ones (!!python/object).
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or getattr(error, "reason", "invalid YAML")
        raise PolicyError(f"{source}: not valid YAML: {problem}{line}; fix the syntax") from None
    except RecursionError:
        # PyYAML composes recursively: thousands of nested brackets exhaust the stack.
        raise PolicyError(f"{source}: the YAML is nested too deeply; flatten it") from None
    if not isinstance(data, dict):
        raise PolicyError(
            f"{source}: the policy must be a mapping of sections, got a "
            f"{type(data).__name__} (line 1)"
        )
    try:
        Policy.model_validate(data)
    except ValidationError as error:
        raise PolicyError(describe_errors(error, source, root)) from None
    data["__root__"] = root
    return data


def _check_nodes(root: yaml.Node, source: str) -> None:
    """Refuse alias bombs (counting aliases expanded) and duplicate mapping keys."""
    count = 0
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            raise PolicyError(
                f"{source}: the YAML expands to more than {MAX_YAML_NODES} nodes "
                "(an alias bomb?); write the policy without nested aliases"
            )
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                name = str(key.value)
                if name in keys:
                    raise PolicyError(
                        f"{source}: key {name!r} appears twice in one mapping "
                        f"(line {key.start_mark.line + 1}); keep one"
                    )
                keys.add(name)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _merge(files: Sequence[tuple[str, Mapping[str, Any]]], name: str) -> Policy:
    """Add the sections of several validated files together, in order."""
    for key, weaker in _WEAKENING:
        _check_weakening(files, key, weaker)
    merged: dict[str, Any] = {}
    owners: dict[tuple[str, str], str] = {}
    for source, data in files:
        for key, value in data.items():
            if key in {"__root__", _ANCESTORS, "extends"}:
                continue
            if key == "rules":
                for item in value or []:
                    _claim(owners, "rules", str(item.get("name")), source)
                merged.setdefault(key, []).extend(value or [])
            elif key == "clauses":
                for clause_id in value or {}:
                    _claim(owners, "clauses", str(clause_id), source)
                merged.setdefault(key, {}).update(value or {})
            elif isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = _merge_section(merged[key], value)
            else:
                merged[key] = value
    merged["sources"] = tuple(source for source, _ in files)
    merged["name"] = name
    try:
        return Policy.model_validate(merged)
    except ValidationError as error:
        raise PolicyError(describe_errors(error, " + ".join(s for s, _ in files), None)) from None


def _check_weakening(files: Sequence[tuple[str, Mapping[str, Any]]], key: str, weaker: str) -> None:
    """A setting that switches checks off (``mode: shadow``, ``recognizers: with_classify``)
    covers the file that sets it and the files it extends, never a policy merged beside it:
    that one's checks would be switched off without its author having said so."""
    covered: set[str] = set()
    setters: list[str] = []
    for source, data in files:
        if data.get(key) == weaker:
            setters.append(source)
            covered |= {source, *data.get(_ANCESTORS, ())}
    for source, data in files:
        if setters and source not in covered and any(data.get(s) for s in _CHECKING_KEYS):
            raise PolicyError(
                f"{setters[0]} sets {key}: {weaker}, which would also apply to {source}, a "
                f"policy merged beside it; set {key}: {weaker} in a policy that extends both, "
                "or leave it out"
            )


def _merge_section(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Lists are concatenated (repeats dropped), mappings merged, scalars taken from ``new``."""
    out = dict(old)
    for key, value in new.items():
        before = out.get(key)
        if isinstance(value, list) and isinstance(before, list):
            out[key] = [*before, *(v for v in value if v not in before)]
        elif isinstance(value, dict) and isinstance(before, dict):
            out[key] = {**before, **value}
        else:
            out[key] = value
    return out


def _claim(owners: dict[tuple[str, str], str], section: str, name: str, source: str) -> None:
    previous = owners.get((section, name))
    if previous is not None:
        kind = "rule" if section == "rules" else "clause"
        raise PolicyError(
            f"{source}: {kind} {name!r} is already defined in {previous}; rename one of them"
        )
    owners[(section, name)] = source


def _stem(source: str) -> str:
    return Path(source).stem if source.endswith((".yaml", ".yml")) else source
