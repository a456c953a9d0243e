"""The sample organisation in each real engine (Cedar, Casbin, an embedded SpiceDB), for the
access-source tests: one builder per engine, each returning the source and a way to revoke a
user's team membership in that engine."""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_guard_integrations.authz.sample import (
    CASBIN_MODEL,
    CEDAR_POLICIES,
    SPICEDB_SCHEMA,
    TENANT,
    SampleOrg,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from rag_guard_integrations.authz.source import AccessSource

REPO = Path(__file__).resolve().parents[1]
# Where `make install` unpacks the embedded SpiceDB's native library (see the Makefile).
SPICEDB_LIB = REPO / ".native/spicedb-0.7.1/package/prebuilds/linux-x64/libspicedb.so"
ENGINES = ("cedar", "casbin", "spicedb")


@dataclass
class Engine:
    """A source over the sample organisation and how to take a user out of their team."""

    name: str
    source: AccessSource
    revoke: Callable[[str], None]
    raw: Any = None


def spicedb_library() -> str:
    """The native library the embedded SpiceDB loads: ``SPICEDB_LIBRARY_PATH`` or the one
    `make install` unpacked; missing, the SpiceDB tests fail and say how to get it."""
    path = os.environ.get("SPICEDB_LIBRARY_PATH") or str(SPICEDB_LIB)
    if not Path(path).is_file():
        raise RuntimeError(f"{path} is missing: run `make install` (it npm-packs the library)")
    os.environ["SPICEDB_LIBRARY_PATH"] = path
    return path


def cedar_engine(org: SampleOrg, **options: Any) -> Engine:
    """Cedar over the organisation; revoking rewrites the entity store without the link."""
    from rag_guard_integrations.authz.cedar import CedarAccess

    options.setdefault("resource_key", "doc_id")
    source = CedarAccess(CEDAR_POLICIES, org.cedar_entities(), **options)

    def revoke(user: str) -> None:
        entities = org.cedar_entities()
        for entity in entities:
            if entity["uid"] == {"type": "User", "id": user}:
                entity["parents"] = []
        source.update(entities=entities)

    return Engine("cedar", source, revoke)


def casbin_engine(org: SampleOrg, folder: Path, **options: Any) -> Engine:
    """Casbin (RBAC with domains) from a model and a policy file; revoking removes the
    grouping line from the live enforcer."""
    from rag_guard_integrations.authz.casbin import CasbinAccess

    (folder / "model.conf").write_text(CASBIN_MODEL)
    (folder / "policy.csv").write_text(org.casbin_policy())
    options.setdefault("resources", org.documents)
    options.setdefault("resource_key", "doc_id")
    source = CasbinAccess.from_files(
        folder / "model.conf", folder / "policy.csv", domain=TENANT, **options
    )

    def revoke(user: str) -> None:
        source.enforcer.remove_grouping_policy(user, org.users[user], TENANT)

    return Engine("casbin", source, revoke)


@contextmanager
def spicedb_engine(org: SampleOrg, **options: Any) -> Iterator[Engine]:
    """An embedded SpiceDB loaded with the organisation; revoking deletes the membership."""
    spicedb_library()
    from authzed.api.v1 import RelationshipUpdate, WriteRelationshipsRequest
    from spicedb_embedded import EmbeddedSpiceDB

    from rag_guard_integrations.authz.spicedb import SpiceDBAccess, parse_relationship

    relationships = [parse_relationship(text) for text in org.spicedb_relationships()]
    db = EmbeddedSpiceDB.start(SPICEDB_SCHEMA, relationships)
    options.setdefault("resource_key", "doc_id")
    source = SpiceDBAccess.embedded(db, **options)

    def revoke(user: str) -> None:
        link = parse_relationship(f"team:{org.users[user]}#member@user:{user}")
        update = RelationshipUpdate(
            operation=RelationshipUpdate.OPERATION_DELETE, relationship=link
        )
        db.permissions().WriteRelationships(WriteRelationshipsRequest(updates=[update]))

    try:
        yield Engine("spicedb", source, revoke, db)
    finally:
        db.close()


@contextmanager
def engine(name: str, org: SampleOrg, folder: Path, **options: Any) -> Iterator[Engine]:
    """The engine ``name`` over ``org`` (files, if any, in ``folder``)."""
    if name == "spicedb":
        with spicedb_engine(org, **options) as built:
            yield built
    elif name == "casbin":
        yield casbin_engine(org, folder, **options)
    else:
        yield cedar_engine(org, **options)
