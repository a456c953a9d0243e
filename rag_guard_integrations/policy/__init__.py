"""Policies: the YAML schema, loading with extends and built-ins, and lint."""

from rag_guard_integrations.policy.loader import builtin_names, load_policy, parse_policy
from rag_guard_integrations.policy.schema import Policy

__all__ = ["Policy", "builtin_names", "load_policy", "parse_policy"]
