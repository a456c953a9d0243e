"""The Guard engine: runs the stages of a policy over a request (above core, guards, policy and
classify)."""

from rag_guard_integrations.engine.guard import Guard

__all__ = ["Guard"]
