"""Access from a Casbin enforcer (RBAC with domains, ABAC...), evaluated in-process by
``casbin``."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.authz.source import Answers, Scope, ScopeCache
from rag_guard_integrations.core.arguments import a_type
from rag_guard_integrations.core.errors import ArgumentError, MissingExtraError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

try:
    import casbin
except ImportError as error:  # pragma: no cover - the extra is installed by `make test`
    raise MissingExtraError(
        "CasbinAccess needs casbin: pip install 'rag-guard-integrations[casbin]'"
    ) from error

DEFAULT_MAX_SCOPE = 10_000


class CasbinAccess:
    """An :class:`~rag_guard_integrations.authz.AccessSource` over a Casbin enforcer: any
    model (RBAC, RBAC with domains or tenants, ABAC) from a model file and a policy file or
    adapter.

    A request is ``(principal, domain, resource, action)``, without ``domain`` when none is
    given. For ABAC models give ``attributes`` (resource id -> the attributes the matcher
    reads as ``r.obj.<name>``): they come from you, never from the chunk's metadata, which is
    an index copy. A resource with no attributes there is denied, and so is one whose
    matcher raised (each resource is retried alone when the batch fails, so one bad resource
    denies only itself). Casbin cannot list what a principal may see in general (matchers are
    code), so the scope evaluates the principal over the collection's resources
    (``resources``, or the keys of ``attributes``), and is unbounded without them or beyond
    ``max_scope``. ``token`` (recorded) is the sha256 of the model and every policy line,
    read at each check, so a policy changed in place is a new version.

    Setup:
        ``pip install 'rag-guard-integrations[casbin]'``

    Example:
        >>> import casbin, tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "model.conf").write_text(
        ...     "[request_definition]\\nr = sub, obj, act\\n[policy_definition]\\n"
        ...     "p = sub, obj, act\\n[role_definition]\\ng = _, _\\n[policy_effect]\\n"
        ...     "e = some(where (p.eft == allow))\\n[matchers]\\n"
        ...     "m = g(r.sub, p.sub) && r.obj == p.obj && r.act == p.act\\n")
        >>> _ = (folder / "policy.csv").write_text("p, eng, d1, read\\ng, alice, eng\\n")
        >>> access = CasbinAccess.from_files(folder / "model.conf", folder / "policy.csv",
        ...                                  resources=["d1", "d2"])
        >>> sorted(access.check("alice", ["d1", "d2"]).granted), sorted(access.scope("bob").ids)
        (['d1'], [])
    """

    name = "casbin"

    def __init__(
        self,
        enforcer: Any,
        *,
        action: str = "read",
        domain: str | None = None,
        resources: Iterable[str] | None = None,
        attributes: Mapping[str, Mapping[str, Any]] | None = None,
        resource_key: str | None = None,
        max_scope: int = DEFAULT_MAX_SCOPE,
    ) -> None:
        if not callable(getattr(enforcer, "enforce", None)):
            raise ArgumentError(
                f"CasbinAccess: enforcer is {a_type(enforcer)}; pass a casbin.Enforcer "
                "(or use CasbinAccess.from_files)"
            )
        self.enforcer = enforcer
        self.action = action
        self.domain = domain
        self.attributes = None if attributes is None else dict(attributes)
        listed = resources if resources is not None else self.attributes
        self.resources = None if listed is None else tuple(dict.fromkeys(map(str, listed)))
        self.resource_key = resource_key
        self.max_scope = max_scope
        self._scopes = ScopeCache()
        self._digest: tuple[int, str] | None = None

    @classmethod
    def from_files(
        cls, model: str | Path, policy: str | Path | Any, **options: Any
    ) -> CasbinAccess:
        """A source over ``casbin.Enforcer(model, policy)``: a model file and a policy CSV
        file or a Casbin adapter; ``options`` as for the constructor."""
        for path in (model, policy) if isinstance(policy, str | Path) else (model,):
            if not Path(path).is_file():
                raise ArgumentError(f"CasbinAccess: {path}: no such file; check the path")
        target = str(policy) if isinstance(policy, str | Path) else policy
        try:
            enforcer = casbin.Enforcer(str(model), target)
        except Exception as error:
            raise ArgumentError(
                f"CasbinAccess: {model} does not load as a Casbin model "
                f"({type(error).__name__}: {error}); fix the model file"
            ) from None
        return cls(enforcer, **options)

    @property
    def token(self) -> str:
        """The policy version: sha256 over the model and every policy and grouping line. The
        lines are compared with the last ones first (in memory), and hashed again only when
        they changed."""
        model = self.enforcer.get_model()
        lines = tuple(
            (ptype, *rule)
            for section in ("p", "g")
            for ptype, assertion in sorted(model.model.get(section, {}).items())
            for rule in assertion.policy
        )
        text = model.to_text()
        seen = hash((text, lines))
        if self._digest is not None and self._digest[0] == seen:
            return self._digest[1]
        digest = hashlib.sha256(text.encode())
        for line in sorted(lines):
            digest.update("\0".join(line).encode() + b"\n")
        token = f"sha256:{digest.hexdigest()[:16]}"
        self._digest = (seen, token)
        return token

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        """Which of ``resources`` the enforcer allows ``principal`` to ``action``."""
        token = self.token
        reasons: dict[str, str] = {}
        asked: list[str] = []
        requests: list[list[Any]] = []
        for resource in resources:
            target = self._target(resource)
            if target is None:
                reasons[resource] = "no attributes for the resource (ABAC)"
                continue
            asked.append(resource)
            head = [principal] if self.domain is None else [principal, self.domain]
            requests.append([*head, target, self.action])
        try:
            verdicts: list[Any] = list(self.enforcer.batch_enforce(requests))
        except Exception:  # one resource may have broken the batch: ask one by one
            verdicts = [self._alone(request) for request in requests]
        # A resource without a verdict of its own is denied: no answer.
        reasons.update(dict.fromkeys(asked[len(verdicts) :], "no answer from casbin"))
        granted = set()
        for resource, verdict in zip(asked, verdicts, strict=False):
            if verdict is True:
                granted.add(resource)
            elif isinstance(verdict, str):
                reasons[resource] = verdict
        return Answers(frozenset(granted), token, reasons)

    def scope(self, principal: str) -> Scope:
        """The collection's resources the enforcer allows ``principal``, one by one (kept per
        principal until the policy changes)."""
        if self.resources is None:
            return Scope.unbounded(
                self.name, "no resource list given; Casbin cannot list", self.resource_key
            )
        if len(self.resources) > self.max_scope:
            return Scope.unbounded(
                self.name,
                f"{len(self.resources)} resources, more than max_scope={self.max_scope}",
                self.resource_key,
            )
        token = self.token
        cached = self._scopes.get(token, principal)
        if cached is not None:
            return cached
        answers = self.check(principal, self.resources)
        scope = Scope.bounded(answers.granted, self.resource_key, self.name, answers.token)
        self._scopes.put(token, principal, scope)
        return scope

    def _target(self, resource: str) -> Any:
        if self.attributes is None:
            return resource
        found = self.attributes.get(resource)
        return None if found is None else dict(found)

    def _alone(self, request: list[Any]) -> bool | str:
        try:
            return bool(self.enforcer.enforce(*request))
        except Exception as error:
            return f"the matcher failed ({type(error).__name__}); denied (fail closed)"
