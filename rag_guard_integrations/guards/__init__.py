"""The guards, one module each (access and hints, clause, recency, domain, combination); each
module declares its stage (:class:`~rag_guard_integrations.guards.stage.StageSpec`), and the
engine's stage list (:mod:`rag_guard_integrations.engine.stages`) orders them.

Import a guard from its module; the package itself exports nothing."""

__all__: list[str] = []
