"""Setup recovery: find where a drafted task's experiment lives in the repository.

Two policies behind one interface (`SetupPolicy`): the deterministic heuristic `SetupAgent`
and `LLMSetupAgent`, which lets any litellm model drive the same read-only tools. Both return
a `Setup` (ranked source files, usage, requirements with file:line references, masked files,
agent instructions, or `no_answer`) with every tool call kept in its trace; `make_setup_agent`
picks one from the settings. `recover_setup` is the one-task shortcut of the heuristic, and
`validate_references` checks a setup's references against the checkout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from expcurate.records import RepoIndex, Setup, SetupResult, StageError, Status, TaskDraft, Usage
from extractors.validate.repo_checks import check_model_fallback

from .llm_policy import DEFAULT_MAX_TOKENS, LLMSetupAgent
from .llm_policy import prompt_version as _llm_prompt_version
from .policy import (
    HEURISTIC_VERSION,
    SetupAgent,
    leaked_names,
    masked_names,
    recover_setup,
    validate_references,
)
from .query import TaskQuery, build_query

if TYPE_CHECKING:
    from expcurate.settings import Settings


class SetupPolicy(Protocol):
    """What the setup stage needs from an agent, whichever policy runs it."""

    prompt_version: str
    issues: list[StageError]  # problems worth a line on the stage result (budget, provider)

    @property
    def usage(self) -> Usage: ...

    def recover(self, task: TaskDraft, *, max_steps: int = ...) -> Setup: ...


def make_setup_agent(
    index: RepoIndex,
    root: Path,
    settings: Settings,
    *,
    model: str | None = None,
    max_tokens: int | None = None,
) -> SetupAgent | LLMSetupAgent:
    """The heuristic agent for model "heuristic", else an LLM agent on the configured client.

    Raises `PrerequisiteError` when the model cannot be used as configured (a missing key):
    the stage should fail with that message rather than silently run the heuristic.
    """
    name = model or settings.model
    if name == "heuristic":
        return SetupAgent(index, root)
    from extractors.llm import make_client

    client = make_client(settings, model=name)
    assert client is not None  # only "heuristic" has no client
    return LLMSetupAgent(
        index,
        root,
        client,
        max_steps=settings.agent_max_steps,
        max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
    )


def recover_setups(
    tasks: Sequence[TaskDraft],
    index: RepoIndex,
    root: Path,
    settings: Settings,
    *,
    model: str | None = None,
    on_setup: Callable[[int, Setup], None] | None = None,
) -> SetupResult:
    """Recover every task's setup with the configured policy: what the setup stage and the
    `setup` command both run, with the same settings.

    `on_setup(i, setup)` is called as each task's setup is found, so a caller can record it at
    once (a kill then loses at most the task at work). A model that cannot be used fails the
    result with the reason instead of falling back silently.
    """
    from extractors.llm import PrerequisiteError

    result = SetupResult()
    if not tasks:
        return result
    try:
        agent = make_setup_agent(
            index, root, settings, model=model, max_tokens=settings.agent_max_tokens
        )
    except PrerequisiteError as e:  # e.g. no API key: nothing can run, say how to fix it
        result.add_error("setup", "prerequisite", str(e))
        result.status = Status.failed
        return result
    done = 0
    started = time.monotonic()
    try:
        for i, task in enumerate(tasks):
            if time.monotonic() - started >= settings.setup_time_budget_s:
                why = (
                    f"not reached: the setup stage's time budget of "
                    f"{settings.setup_time_budget_s:g} s (EXPCURATE_SETUP_TIME_BUDGET_S) was spent"
                )
                for j in range(i, len(tasks)):
                    result.setups[tasks[j].key] = Setup(no_answer=why)
                    if on_setup is not None:
                        on_setup(j, result.setups[tasks[j].key])
                result.add_error(
                    "setup",
                    "time_budget",
                    f"{why} after {done} of {len(tasks)} tasks",
                )
                break
            setup = agent.recover(task, max_steps=settings.agent_max_steps)
            result.setups[task.key] = setup
            if on_setup is not None:
                on_setup(i, setup)
            done += 1
    except PrerequisiteError as e:  # the provider rejected the key or the model mid-run
        result.add_error("setup", "prerequisite", str(e))
        if not done:
            result.status = Status.failed
    for issue in agent.issues:  # spent budget, provider down, per-task fallbacks
        result.add_error(issue.stage, issue.category, issue.message, severity=issue.severity)
    used = model or settings.stage_model("setup")
    fell = [key for key, setup in result.setups.items() if check_model_fallback(setup, used)]
    if fell and len(fell) == len(result.setups):
        result.add_error(
            "setup",
            "model_fallback",
            f"the model {used} contributed no setup: all {len(fell)} tasks fell back to the "
            "heuristic policy (see the warnings above for why)",
        )  # an error: the stage is partial, and nothing of it is approved unseen
    result.usage = agent.usage.model_copy()
    return result


def prompt_version(model: str) -> str:
    """What a setup stage run records as its prompt version (changes with the wording)."""
    if model == "heuristic":
        return HEURISTIC_VERSION
    return _llm_prompt_version()


__all__ = [
    "LLMSetupAgent",
    "SetupAgent",
    "SetupPolicy",
    "TaskQuery",
    "build_query",
    "leaked_names",
    "make_setup_agent",
    "masked_names",
    "prompt_version",
    "recover_setup",
    "recover_setups",
    "validate_references",
]
