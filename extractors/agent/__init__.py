"""Setup recovery: find where a drafted task's experiment lives in the repository.

`recover_setup` runs the deterministic heuristic policy through the read-only repository tools
and returns a `Setup` (ranked source files, usage, requirements with file:line references,
masked files, agent instructions, or `no_answer`), with every tool call kept in its trace.
`SetupAgent` does the same for many tasks of one repository without rebuilding the index;
`validate_references` checks a setup's references against the checkout.
"""

from .policy import (
    SetupAgent,
    leaked_names,
    masked_names,
    recover_setup,
    validate_references,
)
from .query import TaskQuery, build_query

__all__ = [
    "SetupAgent",
    "TaskQuery",
    "build_query",
    "leaked_names",
    "masked_names",
    "recover_setup",
    "validate_references",
]
