"""Load policies: YAML safely parsed, validated, ``extends`` merged, errors located by line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.errors import PolicyError, PolicyNotFoundError
from rag_guard_integrations.policy.merge import beside
from rag_guard_integrations.policy.messages import describe_errors
from rag_guard_integrations.policy.refine import extend
from rag_guard_integrations.policy.schema import Policy

PolicyRef = Policy | str | Path
"""What every ``from_policy`` and :func:`load_policy` take: a Policy, a built-in name or a path."""
MAX_YAML_NODES = 100_000
_PACKAGE = Path(__file__).resolve().parent.parent
# Installed from a wheel, the packs sit inside the package; in a source checkout (an editable
# install) they are the top-level policies/ folder beside the package.
_BUILTIN_POLICIES = next(
    (d for d in (_PACKAGE / "policies", _PACKAGE.parent / "policies") if d.is_dir()),
    _PACKAGE / "policies",
)


def builtin_dir() -> Path:
    """The folder of built-in policies: ``policies/`` of the source tree, which the wheel ships
    inside the package."""
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
            f"policy reference {ref!r} is {a_type(ref)}; pass a built-in name or a path"
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


Cache = dict[Path, Policy]
"""Files already loaded in one call, so that a shared ``extends`` is read once."""


def load_policy(*refs: PolicyRef) -> Policy:
    """Load one or more policies (loaded ones, built-in names or paths) and merge them beside
    each other into one :class:`Policy`; a single loaded policy comes back as it is.

    Merging tightens: every setting takes the stricter value, or the load fails with a
    :class:`PolicyError` naming the setting and both policies (see
    :mod:`rag_guard_integrations.policy.strictness`). Only a file that ``extends`` a policy
    may relax it, listing the setting under ``loosen``.

    Example:
        >>> policy = load_policy("contracts", "default")
        >>> "TERMINATION_NOTICE" in policy.clauses
        True
        >>> load_policy(policy) is policy
        True
        >>> policy.refs
        ('contracts', 'default')
    """
    if not refs:
        raise PolicyError("load_policy needs at least one built-in name or path")
    if len(refs) == 1 and isinstance(refs[0], Policy):
        return refs[0]
    cache: Cache = {}
    named: list[tuple[str, Policy]] = []
    loaded_from: list[str] = []
    for ref in refs:
        if isinstance(ref, Policy):
            # Named by the files it was loaded from, as errors name a policy given by path.
            label = "+".join(ref.refs) or ref.name or "policy"
            named.append((label, ref))
            loaded_from.extend(ref.refs or (label,))
            continue
        path = resolve(ref)
        named.append((_label(path), _load(path, cache, ())))
        loaded_from.append(_label(path))
    return beside(named).model_copy(update={"refs": tuple(loaded_from)})


def parse_policy(text: str, source: str = "<string>") -> Policy:
    """Validate a policy given as YAML text (its ``extends`` resolve from the working folder)."""
    if not isinstance(text, str):
        raise PolicyError(
            f"{source}: the policy text is {a_type(text)}; pass YAML as a str "
            "(load_policy reads a file)"
        )
    data, root = _parse(text, source)
    policy = _refine(data, root, source, Path.cwd(), cache={}, stack=())
    return policy.model_copy(update={"refs": (source,)})


def _load(path: Path, cache: Cache, stack: tuple[Path, ...]) -> Policy:
    """The policy of one file, over what it extends (each file read once per load)."""
    if path in stack:
        chain = " -> ".join(p.name for p in (*stack, path))
        raise PolicyError(f"{path}: extends cycle {chain}; remove one of these extends")
    if path not in cache:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise PolicyError(f"{path}: cannot read the policy ({error}); check the file") from None
        data, root = _parse(text, str(path))
        cache[path] = _refine(data, root, str(path), path.parent, cache=cache, stack=(*stack, path))
    return cache[path]


def _refine(
    data: dict[str, Any],
    root: yaml.Node,
    source: str,
    folder: Path,
    *,
    cache: Cache,
    stack: tuple[Path, ...],
) -> Policy:
    """The file's data over the policies its ``extends`` names (relative paths from ``folder``)."""
    extends = data.get("extends") or []
    parents = [
        (_label(p), _load(p, cache, stack)) for p in (_extended(source, r, folder) for r in extends)
    ]
    return extend(parents, data, source, root)


def _extended(source: str, ref: str, folder: Path) -> Path:
    """The file ``source`` extends by ``ref``; one it cannot find is named with ``source``."""
    try:
        return resolve(ref, folder)
    except PolicyNotFoundError as error:
        raise PolicyNotFoundError(f"{source}: extends {error}") from None


def _label(path: Path) -> str:
    """How errors and ``Policy.refs`` name a file: a built-in by its name, else its path."""
    return path.stem if path.parent == builtin_dir() else str(path)


def _parse(text: str, source: str) -> tuple[dict[str, Any], yaml.Node]:
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
        raise PolicyError(describe_errors(error, source, root, Policy.model_fields)) from None
    return data, root


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
