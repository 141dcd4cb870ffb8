"""The subagent runtime."""

from .service import SubagentServiceImpl, required_capabilities

__all__ = ["SubagentServiceImpl", "required_capabilities"]
