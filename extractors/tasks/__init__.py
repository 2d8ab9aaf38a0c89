"""Draft one task per experiment the paper reports.

`heuristic` (the offline default) reads the paper's structure; any other model name goes
through the LLM layer.
"""

from __future__ import annotations

from expcurate.records import DraftSet, ParsedPaper, Status
from extractors.tasks import heuristic

PROMPT_VERSION = "tasks-heuristic-1"


def draft_tasks(paper: ParsedPaper, model: str = "heuristic") -> DraftSet:
    """Draft the paper's tasks with `model`; a model that cannot be used fails the stage."""
    if model == "heuristic":
        return heuristic.draft(paper)
    result = DraftSet(status=Status.failed)
    result.add_error(
        "tasks",
        "model",
        f"model {model!r}: LLM drafting is not available in this version; "
        "use --model heuristic (EXPCURATE_MODEL=heuristic)",
    )
    result.status = Status.failed
    return result


__all__ = ["PROMPT_VERSION", "draft_tasks"]
