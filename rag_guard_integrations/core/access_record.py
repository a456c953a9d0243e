"""What a check records about access: the access source asked, the version its answers hold
for, and how old the ACLs copied into chunk metadata were."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class AclAges:
    """The ages of the ACL copies the checked chunks carried in ``field``, in whole seconds:
    the oldest, the newest, and how many chunks carried no readable date.

    Example:
        >>> AclAges("acl_synced_at", 86400, 30, 1).to_dict()["oldest_s"]
        86400
    """

    field: str
    oldest_s: int | None
    newest_s: int | None
    undated: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "field": self.field,
            "oldest_s": self.oldest_s,
            "newest_s": self.newest_s,
            "undated": self.undated,
        }


@dataclass(frozen=True, slots=True)
class AccessRecord:
    """The access part of one check, for :class:`GuardResult` and its audit record.

    ``source`` names the engine asked live (None: no live check, only copied ACLs were read);
    ``token`` is its consistency token or policy version (a SpiceDB ZedToken, a Cedar or
    Casbin policy hash); ``resources`` how many distinct resources it was asked about and
    ``granted`` how many it granted; ``failure`` the type of the error that made it deny
    everything, if one did; ``acl_ages`` the ages of the copied ACLs when the policy bounds
    them. No field holds chunk text or a metadata value.

    Example:
        >>> AccessRecord("spicedb", "GhUKEzE3", 3, 2).to_dict()["granted"]
        2
    """

    source: str | None
    token: str | None = None
    resources: int = 0
    granted: int = 0
    failure: str | None = None
    acl_ages: AclAges | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the audit record's ``access_source``)."""
        return {
            "source": self.source,
            "token": self.token,
            "resources": self.resources,
            "granted": self.granted,
            "failure": self.failure,
            "acl_ages": None if self.acl_ages is None else self.acl_ages.to_dict(),
        }
