"""A small sample organisation written for each engine (Cedar, Casbin, SpiceDB): teams nested
two levels, folders shared with teams, documents in folders or shared with one person, and the
chunks an index would hold, with their ACL copied into metadata. For the docs, tests and the
access benchmark; :meth:`SampleOrg.can_view` is the ground truth, computed without any engine."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rag_guard_integrations.core.chunk import Chunk

CEDAR_POLICIES = """\
// A member of a team, or of a team nested in it, sees the folders shared with that team.
permit(principal, action == Action::"view", resource)
  when { resource has folder && principal in resource.folder.viewers };
// A document shared with one person directly.
permit(principal, action == Action::"view", resource)
  when { resource has shared_with && resource.shared_with.contains(principal) };
"""

CASBIN_MODEL = """\
[request_definition]
r = sub, dom, obj, act

[policy_definition]
p = sub, dom, obj, act

[role_definition]
g = _, _, _
g2 = _, _

[policy_effect]
e = some(where (p.eft == allow))

[matchers]
m = g(r.sub, p.sub, r.dom) && r.dom == p.dom && g2(r.obj, p.obj) && r.act == p.act
"""

SPICEDB_SCHEMA = """\
definition user {}

definition team {
  relation member: user | team#member
}

definition folder {
  relation viewer: team#member | user
  permission view = viewer
}

definition document {
  relation folder: folder
  relation viewer: user
  permission view = viewer + folder->view
}
"""

TENANT = "acme"


@dataclass(frozen=True)
class SampleOrg:
    """Teams (each with its parent), users (each in one team), folders (each shared with
    teams), documents (each in a folder, some also shared with a user), two chunks per
    document.

    Example:
        >>> org = SampleOrg.build()
        >>> org.can_view("ana", "backend-0"), org.can_view("ana", "payroll-0")
        (True, False)
    """

    teams: dict[str, str | None]
    users: dict[str, str | None]
    folders: dict[str, tuple[str, ...]]
    documents: dict[str, str]
    shared: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def build(cls, documents_per_folder: int = 6) -> SampleOrg:
        """The organisation: ``staff`` > ``engineering`` > ``backend``/``frontend``, ``staff`` >
        ``finance`` > ``payroll``, ``staff`` > ``legal``; one folder per team."""
        teams: dict[str, str | None] = {
            "staff": None,
            "engineering": "staff",
            "finance": "staff",
            "legal": "staff",
            "backend": "engineering",
            "frontend": "engineering",
            "payroll": "finance",
        }
        users: dict[str, str | None] = {
            "ana": "backend",
            "ben": "backend",
            "cai": "frontend",
            "dee": "engineering",
            "eli": "payroll",
            "fay": "finance",
            "gus": "legal",
            "hal": "staff",
            "ivy": None,  # in no team
        }
        folders: dict[str, tuple[str, ...]] = {team: (team,) for team in teams}
        folders["legal"] = ("legal", "finance")  # legal's folder is shared with finance too
        documents = {
            f"{folder}-{n}": folder for folder in folders for n in range(documents_per_folder)
        }
        shared = {"payroll-1": ("ana",), "legal-2": ("cai", "ivy")}
        return cls(teams, users, folders, documents, shared)

    def teams_of(self, user: str) -> set[str]:
        """The user's team and every team it is nested in."""
        found: set[str] = set()
        team = self.users.get(user)
        while team is not None:
            found.add(team)
            team = self.teams[team]
        return found

    def can_view(self, user: str, document: str) -> bool:
        """The ground truth: through a team the folder is shared with, or shared directly."""
        folder = self.documents.get(document)
        if folder is None:
            return False
        through_team = bool(self.teams_of(user) & set(self.folders[folder]))
        return through_team or user in self.shared.get(document, ())

    def chunks(self, synced_at: str = "2026-11-30T00:00:00+00:00") -> list[Chunk]:
        """Two chunks per document, metadata ``doc_id``, ``folder`` and the ACL copied at
        ingestion (``viewers``: the folder's teams and the document's users; ``acl_synced_at``)."""
        out = []
        for document, folder in self.documents.items():
            viewers = sorted({*self.folders[folder], *self.shared.get(document, ())})
            for part in range(2):
                meta = {
                    "doc_id": document,
                    "folder": folder,
                    "viewers": viewers,
                    "acl_synced_at": synced_at,
                }
                text = f"Part {part + 1} of {document}, filed in the {folder} folder."
                out.append(Chunk(text, meta, id=f"{document}#{part}"))
        return out

    def cedar_entities(self) -> list[dict[str, Any]]:
        """The organisation as Cedar JSON entities (users, groups, folders, documents)."""

        def ref(kind: str, name: str) -> dict[str, str]:
            return {"type": kind, "id": name}

        def value(kind: str, name: str) -> dict[str, Any]:  # an entity as an attribute value
            return {"__entity": ref(kind, name)}

        entities: list[dict[str, Any]] = []
        for user, team in self.users.items():
            parents = [] if team is None else [ref("Group", team)]
            entities.append({"uid": ref("User", user), "attrs": {}, "parents": parents})
        for team, parent in self.teams.items():
            parents = [] if parent is None else [ref("Group", parent)]
            entities.append({"uid": ref("Group", team), "attrs": {}, "parents": parents})
        for folder, teams in self.folders.items():
            viewers = [value("Group", team) for team in teams]
            entities.append({"uid": ref("Folder", folder), "attrs": {"viewers": viewers}})
        for document, folder in self.documents.items():
            attrs: dict[str, Any] = {"folder": value("Folder", folder)}
            if document in self.shared:
                attrs["shared_with"] = [value("User", user) for user in self.shared[document]]
            entities.append(
                {
                    "uid": ref("Document", document),
                    "attrs": attrs,
                    "parents": [ref("Folder", folder)],
                }
            )
        for entity in entities:
            entity.setdefault("parents", [])
        return entities

    def casbin_policy(self) -> str:
        """The organisation as Casbin policy lines for :data:`CASBIN_MODEL` (tenant ``acme``)."""
        lines = [f"g, {user}, {team}, {TENANT}" for user, team in self.users.items() if team]
        lines += [f"g, {team}, {parent}, {TENANT}" for team, parent in self.teams.items() if parent]
        lines += [f"g2, {document}, {folder}" for document, folder in self.documents.items()]
        for folder, teams in self.folders.items():
            lines += [f"p, {team}, {TENANT}, {folder}, read" for team in teams]
        for document, users in self.shared.items():
            lines += [f"p, {user}, {TENANT}, {document}, read" for user in users]
        return "\n".join(lines) + "\n"

    def spicedb_relationships(self) -> list[str]:
        """The organisation as SpiceDB relationships for :data:`SPICEDB_SCHEMA`."""
        rels = [f"team:{team}#member@user:{user}" for user, team in self.users.items() if team]
        rels += [
            f"team:{parent}#member@team:{team}#member"
            for team, parent in self.teams.items()
            if parent
        ]
        for folder, teams in self.folders.items():
            rels += [f"folder:{folder}#viewer@team:{team}#member" for team in teams]
        rels += [f"document:{doc}#folder@folder:{folder}" for doc, folder in self.documents.items()]
        for document, users in self.shared.items():
            rels += [f"document:{document}#viewer@user:{user}" for user in users]
        return rels

    def cedar_entities_json(self) -> str:
        """:meth:`cedar_entities` as JSON text."""
        return json.dumps(self.cedar_entities())
