"""Access from OpenFGA through ``openfga-sdk``: ``BatchCheck`` for the live check,
``ListObjects`` for the scope, which is trusted only when it cannot have been cut short."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.authz.source import Answers, Scope, error_name
from rag_guard_integrations.core.errors import ArgumentError, MissingExtraError

if TYPE_CHECKING:
    from collections.abc import Sequence

try:
    from openfga_sdk.client.models import (
        ClientBatchCheckItem,
        ClientBatchCheckRequest,
        ClientListObjectsRequest,
    )
except ImportError as error:  # pragma: no cover - the extra is installed by `make test`
    raise MissingExtraError(
        "OpenFGAAccess needs openfga-sdk: pip install 'rag-guard-integrations[openfga]'"
    ) from error

# An OpenFGA object id: no type separator, relation marker, wildcard or whitespace (``user:*``
# is OpenFGA's public wildcard and ``team:eng#member`` a userset; a principal is neither).
_ID = re.compile(r"[^#:*\s]{1,256}")
DEFAULT_MAX_SCOPE = 1_000  # OpenFGA's default listObjectsMaxResults
DEFAULT_LIST_DEADLINE = 3.0  # seconds: OpenFGA's default listObjectsDeadline


class OpenFGAAccess:
    """An :class:`~rag_guard_integrations.authz.AccessSource` over OpenFGA.

    The bulk check sends ``BatchCheck`` (``user_type:principal`` has ``relation`` on
    ``object_type:id``?); a resource is granted only when its item answers ``allowed`` with no
    error. ``ListObjects`` stops silently at the server's ``listObjectsMaxResults`` (1,000 by
    default) or its ``listObjectsDeadline`` (3 s): a list of ``max_scope`` objects or more, or
    one that took ``0.8 x list_deadline`` or longer, may be cut short, so the scope is then
    unbounded, and so it is when the call fails. Set both to your server's values. ``token``
    (recorded) is the authorization model id; OpenFGA returns no consistency token.

    Setup:
        ``pip install 'rag-guard-integrations[openfga]'``; an OpenFGA server.

    Key init args:
        client: an ``openfga_sdk.sync.OpenFgaClient`` with its store and model set.

    Example:
        >>> from openfga_sdk.client import ClientConfiguration
        >>> from openfga_sdk.sync import OpenFgaClient
        >>> client = OpenFgaClient(ClientConfiguration(  # doctest: +SKIP
        ...     api_url="http://openfga:8080", store_id=STORE, authorization_model_id=MODEL))
        >>> access = OpenFGAAccess(client, resource_key="doc_id")  # doctest: +SKIP
    """

    name = "openfga"

    def __init__(
        self,
        client: Any,
        *,
        object_type: str = "document",
        relation: str = "viewer",
        user_type: str = "user",
        resource_key: str | None = None,
        max_scope: int = DEFAULT_MAX_SCOPE,
        list_deadline: float = DEFAULT_LIST_DEADLINE,
        options: dict[str, Any] | None = None,
    ) -> None:
        for method in ("batch_check", "list_objects"):
            if not callable(getattr(client, method, None)):
                raise ArgumentError(
                    f"OpenFGAAccess: client has no {method}; pass an openfga_sdk.sync.OpenFgaClient"
                )
        self.client = client
        self.object_type = object_type
        self.relation = relation
        self.user_type = user_type
        self.resource_key = resource_key
        self.max_scope = max_scope
        self.list_deadline = list_deadline
        self.options = options

    @property
    def token(self) -> str | None:
        """The authorization model the answers come from, when the client names one."""
        model = getattr(self.client, "get_authorization_model_id", lambda: None)()
        return None if not model else f"model:{model}"

    def check(self, principal: str, resources: Sequence[str]) -> Answers:
        """Which of ``resources`` OpenFGA says ``principal`` has ``relation`` on."""
        if _ID.fullmatch(principal) is None:
            reason = "the principal is not an OpenFGA object id"
            return Answers(frozenset(), None, dict.fromkeys(resources, reason))
        reasons = {r: "not an OpenFGA object id" for r in resources if _ID.fullmatch(r) is None}
        asked = {f"{self.object_type}:{r}": r for r in resources if r not in reasons}
        if not asked:
            return Answers(frozenset(), self.token, reasons)
        user = f"{self.user_type}:{principal}"
        checks = [ClientBatchCheckItem(user=user, relation=self.relation, object=o) for o in asked]
        response = self.client.batch_check(ClientBatchCheckRequest(checks=checks), self.options)
        granted: set[str] = set()
        answered: set[str] = set()
        for item in response.result:
            request = item.request
            resource = asked.get(request.object)
            if resource is None or request.user != user or request.relation != self.relation:
                continue  # an answer to another question
            answered.add(resource)
            if item.error is not None:
                reasons[resource] = "OpenFGA error for this item (fail closed)"
            elif item.allowed is True:
                granted.add(resource)
        for resource in asked.values():
            if resource not in answered:
                reasons.setdefault(resource, "no answer from OpenFGA")
        return Answers(frozenset(granted), self.token, reasons)

    def scope(self, principal: str) -> Scope:
        """The objects ``ListObjects`` returns, unless the list may have been cut short."""
        if _ID.fullmatch(principal) is None:
            return Scope.bounded((), self.resource_key, self.name)
        request = ClientListObjectsRequest(
            user=f"{self.user_type}:{principal}", relation=self.relation, type=self.object_type
        )
        started = time.monotonic()
        try:
            objects = list(self.client.list_objects(request, self.options).objects)
        except Exception as error:  # a failed listing bounds nothing; the bulk check decides
            return Scope.unbounded(
                self.name, f"ListObjects failed ({error_name(error)})", self.resource_key
            )
        took = time.monotonic() - started
        if len(objects) >= self.max_scope:
            reason = f"ListObjects returned {len(objects)} objects, its limit (truncated)"
            return Scope.unbounded(self.name, reason, self.resource_key, self.token)
        if took >= 0.8 * self.list_deadline:
            reason = f"ListObjects took {took:.1f}s, near its {self.list_deadline}s deadline"
            return Scope.unbounded(self.name, reason, self.resource_key, self.token)
        prefix = f"{self.object_type}:"
        ids = {str(o)[len(prefix) :] for o in objects if str(o).startswith(prefix)}
        return Scope.bounded(ids, self.resource_key, self.name, self.token)
