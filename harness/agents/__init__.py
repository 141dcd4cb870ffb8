"""Agents: the loop, scopes, inbox and registry."""

from .agent import LoopAgent
from .registry import AgentHandleImpl, AgentRegistryImpl

__all__ = ["AgentHandleImpl", "AgentRegistryImpl", "LoopAgent"]
