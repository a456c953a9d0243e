"""The guards, one module each (access and hints, clause, recency, domain, combination); each
module's ``STAGES`` joins the registry (:mod:`rag_guard_integrations.guards.registry`).

Import a guard from its module; the package itself exports nothing."""

__all__: list[str] = []
