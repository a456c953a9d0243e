"""Access from Cedar policies and an entity store, evaluated in-process by ``cedarpy``."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.authz.source import Answers, Scope, ScopeCache
from rag_guard_integrations.core.errors import ArgumentError, MissingExtraError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

try:
    import cedarpy
except ImportError as error:  # pragma: no cover - the extra is installed by `make test`
    raise MissingExtraError(
        "CedarAccess needs cedarpy: pip install 'rag-guard-integrations[cedar]'"
    ) from error

DEFAULT_MAX_SCOPE = 10_000


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """One consistent version of the policies and entities, swapped whole on update."""

    policies_text: str
    entities_text: str
    policies: Any
    entities: Any
    resources: tuple[str, ...]
    token: str


class CedarAccess:
    """An :class:`~rag_guard_integrations.authz.AccessSource` over Cedar policies and an
    entity store (users, groups, documents with parents), decided by the Cedar engine.

    The bulk check asks Cedar one request per distinct resource
    (``principal_type::principal``, ``action``, ``resource_type::id``) in one batch. A
    resource is granted only on ``Allow`` with no evaluation error: Cedar skips a policy that
    errors, so a ``forbid`` that fails to evaluate would otherwise let the request through; here
    any error denies (fail closed). The scope evaluates the principal over every resource of
    ``resource_type`` in the entity store (more than ``max_scope`` of them: unbounded). Cedar's
    partial evaluation is experimental upstream and returns residual policies, not ids, so it
    is not used. ``token`` (recorded) is the sha256 of the policies and entities.

    Setup:
        ``pip install 'rag-guard-integrations[cedar]'``

    Key init args:
        policies: Cedar policy text.
        entities: the entity store, Cedar JSON entities (a list of dicts or JSON text).
        action: the action checked, e.g. ``'Action::"view"'``.
        principal_type / resource_type: the entity types of callers and documents.
        resource_key: the chunk metadata key naming its document (None: the chunk id).

    Example:
        >>> policies = 'permit(principal in Group::"eng", action, resource in Folder::"eng");'
        >>> entities = [
        ...     {"uid": {"type": "User", "id": "alice"}, "attrs": {},
        ...      "parents": [{"type": "Group", "id": "backend"}]},
        ...     {"uid": {"type": "Group", "id": "backend"}, "attrs": {},
        ...      "parents": [{"type": "Group", "id": "eng"}]},
        ...     {"uid": {"type": "Document", "id": "d1"}, "attrs": {},
        ...      "parents": [{"type": "Folder", "id": "eng"}]},
        ...     {"uid": {"type": "Document", "id": "d2"}, "attrs": {}, "parents": []}]
        >>> cedar = CedarAccess(policies, entities, resource_key="doc_id")
        >>> sorted(cedar.check("alice", ["d1", "d2"]).granted), sorted(cedar.scope("alice").ids)
        (['d1'], ['d1'])
    """

    name = "cedar"

    def __init__(
        self,
        policies: str,
        entities: Sequence[Mapping[str, Any]] | str,
        *,
        action: str = 'Action::"view"',
        principal_type: str = "User",
        resource_type: str = "Document",
        resource_key: str | None = None,
        schema: str | dict[str, Any] | None = None,
        max_scope: int = DEFAULT_MAX_SCOPE,
    ) -> None:
        self.action = _entity_ref(action)
        self.principal_type = principal_type
        self.resource_type = resource_type
        self.resource_key = resource_key
        self.max_scope = max_scope
        self._schema = json.dumps(schema) if isinstance(schema, dict) else schema
        self._lock = threading.Lock()
        self._scopes = ScopeCache()
        self._snapshot = self._load(policies, entities)

    def update(
        self,
        *,
        policies: str | None = None,
        entities: Sequence[Mapping[str, Any]] | str | None = None,
    ) -> None:
        """Replace the policies and/or the entity store; checks after it see the new version,
        checks under way finish on the old one."""
        with self._lock:
            current = self._snapshot
            self._snapshot = self._load(
                current.policies_text if policies is None else policies,
                current.entities_text if entities is None else entities,
            )

    def __getstate__(self) -> dict[str, Any]:
        """Pickle as the policy and entity text (the parsed handles and the lock do not)."""
        skipped = {"_lock", "_snapshot", "_scopes"}
        state = {k: v for k, v in self.__dict__.items() if k not in skipped}
        snapshot = self._snapshot
        return {**state, "_texts": (snapshot.policies_text, snapshot.entities_text)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        policies, entities = state.pop("_texts")
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._scopes = ScopeCache()
        self._snapshot = self._load(policies, entities)

    @property
    def token(self) -> str:
        """The policy-set version: sha256 over the policies and entities, as loaded."""
        return self._snapshot.token

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        """Which of ``resources`` Cedar allows ``principal`` (see the class docstring)."""
        return _decide(self, self._snapshot, principal, resources)

    def scope(self, principal: str) -> Scope:
        """The resources of ``resource_type`` Cedar allows ``principal``, evaluated one by one
        (kept per principal until the policies or entities change); unbounded when the policies
        also grant a resource the entity store does not list (a grant by principal alone)."""
        snapshot = self._snapshot
        cached = self._scopes.get(snapshot.token, principal)
        if cached is not None:
            return cached
        if len(snapshot.resources) > self.max_scope:
            return Scope.unbounded(
                self.name,
                f"the entity store holds {len(snapshot.resources)} resources, more than "
                f"max_scope={self.max_scope}",
                self.resource_key,
                snapshot.token,
            )
        # A resource the entity store lacks, probed alongside: if the policies grant it, they
        # grant by principal alone, and the store's resources do not bound what they allow.
        probe = f"unlisted-{secrets.token_hex(8)}"
        answers = _decide(self, snapshot, principal, (*snapshot.resources, probe))
        if probe in answers.granted:
            scope = Scope.unbounded(
                self.name,
                "the policies grant resources the entity store does not list",
                self.resource_key,
                snapshot.token,
            )
        else:
            scope = Scope.bounded(answers.granted, self.resource_key, self.name, snapshot.token)
        self._scopes.put(snapshot.token, principal, scope)
        return scope

    def _load(self, policies: str, entities: Sequence[Mapping[str, Any]] | str) -> _Snapshot:
        text = entities if isinstance(entities, str) else json.dumps(list(entities))
        try:
            parsed_policies = cedarpy.PolicySet.from_str(policies)
            parsed = json.loads(text)
            store = cedarpy.Entities.from_json_str(text, self._schema)
        except ValueError as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ArgumentError(
                f"CedarAccess: the policies or entities do not parse ({first}); fix them"
            ) from None
        resources = tuple(
            str(uid["id"])
            for entity in parsed
            if (uid := _uid(entity)) is not None and uid.get("type") == self.resource_type
        )
        digest = hashlib.sha256(policies.encode() + b"\0" + text.encode()).hexdigest()
        token = f"sha256:{digest[:16]}"
        return _Snapshot(policies, text, parsed_policies, store, resources, token)


def _decide(
    source: CedarAccess, snapshot: _Snapshot, principal: str, resources: Sequence[str]
) -> Answers:
    principal_ref = {"type": source.principal_type, "id": principal}
    requests = [
        {
            "principal": principal_ref,
            "action": source.action,
            "resource": {"type": source.resource_type, "id": resource},
            "context": {},
        }
        for resource in resources
    ]
    results = cedarpy.is_authorized_batch(requests, snapshot.policies, snapshot.entities)
    granted: set[str] = set()
    # A resource without a result of its own is denied: no answer.
    reasons: dict[str, str] = dict.fromkeys(resources[len(results) :], "no answer from cedar")
    for resource, result in zip(resources, results, strict=False):
        errors = result.diagnostics.errors
        if errors:
            reasons[resource] = f"{len(errors)} policies failed to evaluate (fail closed)"
        elif result.decision == cedarpy.Decision.Allow:
            granted.add(resource)
        elif result.decision != cedarpy.Decision.Deny:
            reasons[resource] = f"no decision ({result.decision.name})"
    return Answers(frozenset(granted), snapshot.token, reasons)


def _uid(entity: object) -> Mapping[str, Any] | None:
    """An entity's ``uid`` as ``{"type", "id"}`` (Cedar takes it bare or under ``__entity``)."""
    uid = entity.get("uid") if isinstance(entity, dict) else None
    if isinstance(uid, dict) and isinstance(uid.get("__entity"), dict):
        uid = uid["__entity"]
    return uid if isinstance(uid, dict) else None


def _entity_ref(text: str) -> dict[str, str]:
    """``'Action::"view"'`` as Cedar's structured reference ``{"type", "id"}``."""
    kind, sep, rest = text.partition("::")
    if not sep or not rest.startswith('"') or not rest.endswith('"') or len(rest) < 2:
        raise ArgumentError(f"CedarAccess: action {text!r} is not like 'Action::\"view\"'")
    return {"type": kind, "id": json.loads(rest)}
