"""The Guard engine: runs the stages of a policy over a request (above core, guards, policy and
classify)."""

from rag_guard_integrations.engine.guard import Guard, fetch_size
from rag_guard_integrations.engine.plan import RequestPlan

__all__ = ["Guard", "RequestPlan", "fetch_size"]
