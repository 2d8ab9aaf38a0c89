"""The LLM setup agent: any litellm model driving the same read-only tools as the heuristic.

The model gets the task (question, method, expected outcome) and a compact overview of the
repository, then explores with `list`, `search`, `read` and `outline` until it calls `submit`.
Every call, malformed ones included, is answered and kept in the trace. The submission is
checked (`llm_checks`): its problems go back to the model once, and what is still wrong after
that is dropped with a note. When the step or token budget runs out without an answer, the
task gets the heuristic policy's setup instead, marked in the trace: a reviewer is better
served by a checked guess labelled as such than by a `no_answer` that would claim the
repository lacks the experiment when the model merely ran out of time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from expcurate.records import RepoIndex, Setup, Severity, StageError, TaskDraft, ToolCall, Usage
from extractors.llm import (
    BudgetExceeded,
    LLMClient,
    LLMError,
    LLMUnavailable,
    ToolRequest,
    load_prompt,
)
from extractors.repo import RepoSearch

from .llm_checks import Review, review
from .llm_tools import RepoTools, SubmitArgs, overview, parse_arguments, tool_schemas, trace_entry
from .policy import SetupAgent, agent_instructions
from .query import build_query

PROMPT_PATH = Path(__file__).parent / "prompts" / "setup.md"
DEFAULT_MAX_STEPS = 40
DEFAULT_MAX_TOKENS = 400_000  # prompt + completion tokens of one task's conversation
ALL_TOOLS = tool_schemas()
SUBMIT_ONLY = tool_schemas(("submit",))
LAST_CALL = (
    "The step budget is spent. Call submit now with what you have found, or with no_answer "
    "if nothing in the repository implements the experiment."
)
NUDGE = "Use the tools to look at the repository, or call submit with your answer."
# Said when a whole conversation had prose and no tool call: the usual cause is a server that
# leaves the tools out of the prompt, not a model that chose not to use them.
NO_TOOL_CALLS = (
    "; the model made no tool call at all: check that the server passes tools to it (llama.cpp "
    "needs --jinja and a chat template with tools; some models have none)"
)
REPAIR = (
    "This submission has problems:\n{problems}\nFix them and call submit again with the whole "
    "answer. This is the only repair turn: items still wrong after it are dropped."
)


def prompt_version() -> str:
    return f"setup-llm-{load_prompt(PROMPT_PATH).version}"


@dataclass
class _Run:
    """One task's conversation and its budgets."""

    task: TaskDraft
    max_steps: int
    messages: list[dict[str, Any]]
    trace: list[ToolCall] = field(default_factory=list)
    steps: int = 0
    tokens: int = 0
    grace: int = 0  # submit-only turns granted after the step budget
    pending: Review | None = None  # a submission sent back for repair
    result: Setup | None = None
    calls: int = 0  # tool calls the model made, well-formed or not


class LLMSetupAgent:
    """Recovers setups with a model; same `recover` interface as the heuristic `SetupAgent`."""

    def __init__(
        self,
        index: RepoIndex,
        root: Path,
        client: LLMClient,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        search: RepoSearch | None = None,
    ) -> None:
        self.index = index
        self.root = Path(root)
        self.client = client
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        self.fallback = SetupAgent(index, self.root, search)
        self.search = self.fallback.search
        self.tools = RepoTools(index, self.search)
        prompt = load_prompt(PROMPT_PATH)
        self.system = prompt.text
        self.prompt_version = f"setup-llm-{prompt.version}"
        self.issues: list[StageError] = []
        self._stopped = ""  # why the model is not asked any more (budget spent, provider down)

    @property
    def usage(self) -> Usage:
        """Every model call of this agent so far, summed (cache hits counted apart)."""
        return self.client.usage

    # ------------------------------------------------------------ public

    def recover(self, task: TaskDraft, *, max_steps: int | None = None) -> Setup:
        steps = max_steps or self.max_steps
        if self._stopped:
            return self._fall_back(task, [], self._stopped, steps)
        before = self.client.usage.model_copy()
        run = _Run(task, steps, self._opening(task, steps))
        try:
            setup, reason = self._converse(run)
            if setup is None and not run.calls:
                reason += NO_TOOL_CALLS
            if setup is None:
                self._issue(task, "agent_budget", reason, Severity.warning)
        except (BudgetExceeded, LLMUnavailable) as e:
            category = "budget" if isinstance(e, BudgetExceeded) else "provider"
            self._stopped = f"{category}: {e}"
            self._issue(task, category, f"{e}; this and later tasks use the heuristic policy")
            setup, reason = None, self._stopped
        except LLMError as e:
            setup, reason = None, f"the model's request failed: {e}"
            self._issue(task, "llm", reason, Severity.warning)
        run.trace.append(_usage_note(before, self.client.usage))
        if setup is None:
            return self._fall_back(task, run.trace, reason, steps)
        if setup.source and not setup.agent_instructions.strip():
            # the heuristic's wording: the task's own words, no masked name by construction
            setup.agent_instructions = agent_instructions(
                task, build_query(task), setup, self.index
            )
        setup.trace = run.trace
        return setup

    # ------------------------------------------------------------ the loop

    def _opening(self, task: TaskDraft, max_steps: int) -> list[dict[str, Any]]:
        q = build_query(task)
        ranked = self.fallback.ranker.rank(q, self.search.scores(" ".join([*q.words, *q.names])))
        lines = ["Experiment to find in the repository:", f"Question: {task.question.strip()}"]
        if task.method.strip():
            lines.append(f"Method: {task.method.strip()}")
        lines.append(f"Expected outcome: {task.expected_outcome.strip()}")
        design = task.design_complexity.model_dump(exclude_defaults=True)
        if any(design.values()):
            lines.append("Design variables: " + json.dumps(design, ensure_ascii=False)[:1500])
        if task.subsection_source:
            lines.append(f"Paper section: {task.subsection_source}")
        lines += ["", "Repository overview:", overview(self.index, self.search, q, ranked)]
        system = self.system.replace("{max_steps}", str(max_steps))
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def _converse(self, run: _Run) -> tuple[Setup | None, str]:
        """(the accepted setup, "") or (None, why there is none)."""
        while run.result is None:
            if run.tokens >= self.max_tokens:
                return self._leftover(run, f"token budget of {self.max_tokens} spent")
            only_submit = run.steps >= run.max_steps
            if only_submit:
                if run.grace >= (2 if run.pending else 1):
                    return self._leftover(
                        run, f"step budget of {run.max_steps} tool calls spent without an answer"
                    )
                if run.grace == 0:
                    run.messages.append({"role": "user", "content": LAST_CALL})
                run.grace += 1
            turn = self.client.complete_tools(
                run.messages,
                SUBMIT_ONLY if only_submit else ALL_TOOLS,
                purpose=f"setup {run.task.key}",
            )
            run.tokens += turn.tokens
            if turn.content.strip():
                run.trace.append(trace_entry("message", {}, turn.content.strip()))
            for n, call in enumerate(turn.tool_calls):
                call.id = call.id or f"call_{run.steps}_{n}"  # some servers send none
            run.messages.append(turn.message())
            run.calls += len(turn.tool_calls)
            if not turn.tool_calls:
                run.steps += 1
                run.trace.append(trace_entry("(none)", {}, "no tool call; asked to use the tools"))
                run.messages.append({"role": "user", "content": NUDGE})
                continue
            cut = turn.finish_reason == "length"
            for call in turn.tool_calls:
                run.messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "name": call.name,
                        "content": self._answer(run, call, cut),
                    }
                )
        return run.result, ""

    def _answer(self, run: _Run, call: ToolRequest, cut: bool = False) -> str:
        name = call.name or "?"
        if run.result is not None:
            return "ignored: an answer was already accepted"
        if run.steps >= run.max_steps and name != "submit":
            text = "not run: the step budget is spent; call submit"
            run.trace.append(trace_entry(name, {"raw": call.arguments[:300]}, text))
            return text
        run.steps += 1
        args, shown, error = parse_arguments(name, call.arguments)
        if args is None:
            if cut:
                error += " (the answer was cut off at the output token limit: write less)"
            run.trace.append(trace_entry(name, shown, error))
            return error
        if isinstance(args, SubmitArgs):
            return self._submit(run, args, shown)
        text = self.tools.run(name, args)
        run.trace.append(trace_entry(name, shown, text))
        return text

    def _submit(self, run: _Run, args: SubmitArgs, shown: dict[str, Any]) -> str:
        checked = review(args, self.index, self.root)
        if checked.ok:
            run.result, _ = checked.finalize()
            run.trace.append(ToolCall(tool="submit", args=shown, result="accepted"))
            return "accepted"
        if run.pending is None:
            run.pending = checked
            problems = "\n".join(f"- {p}" for p in checked.problems[:30])
            run.trace.append(trace_entry("submit", shown, "sent back for repair:\n" + problems))
            return REPAIR.format(problems=problems)
        run.trace.append(ToolCall(tool="submit", args=shown, result="repaired submission"))
        setup, notes = checked.finalize()
        if setup is None:  # the repair made things worse: keep what the first one had
            setup, more = run.pending.finalize()
            notes += more
        self._note(run, notes)
        if setup is not None:
            run.result = setup
        run.pending = None
        return "accepted with the problems removed"

    def _leftover(self, run: _Run, reason: str) -> tuple[Setup | None, str]:
        """At a budget's end, a submission awaiting repair is still the model's answer."""
        if run.pending is None:
            return None, reason
        setup, notes = run.pending.finalize()
        self._note(run, [f"{reason} before the repaired submission", *notes])
        return setup, reason

    @staticmethod
    def _note(run: _Run, notes: list[str]) -> None:
        if notes:
            run.trace.append(
                ToolCall(tool="validate", args={"notes": len(notes)}, result="\n".join(notes))
            )

    # ------------------------------------------------------------ fallback

    def _fall_back(self, task: TaskDraft, trace: list[ToolCall], reason: str, steps: int) -> Setup:
        # The step budget bounds what the model may spend; the heuristic costs nothing, so it
        # gets at least its usual budget rather than a small one set for the model.
        setup = self.fallback.recover(task, max_steps=max(steps, DEFAULT_MAX_STEPS))
        marker = ToolCall(
            tool="fallback",
            args={"policy": "heuristic"},
            result=f"{reason}; the steps below are the heuristic policy's",
        )
        setup.trace = [*trace, marker, *setup.trace]
        return setup

    def _issue(
        self, task: TaskDraft, category: str, message: str, severity: Severity = Severity.error
    ) -> None:
        self.issues.append(
            StageError(
                stage="setup",
                category=category,
                message=f"{task.key}: {message}",
                severity=severity,
            )
        )


def _usage_note(before: Usage, after: Usage) -> ToolCall:
    delta = Usage(
        calls=after.calls - before.calls,
        cached_calls=after.cached_calls - before.cached_calls,
        prompt_tokens=after.prompt_tokens - before.prompt_tokens,
        completion_tokens=after.completion_tokens - before.completion_tokens,
        cost_usd=after.cost_usd - before.cost_usd,
        latency_s=after.latency_s - before.latency_s,
    )
    text = (
        f"{delta.calls} model call(s), {delta.cached_calls} cached; {delta.prompt_tokens} prompt "
        f"+ {delta.completion_tokens} completion tokens; ${delta.cost_usd:.4f}"
    )
    return ToolCall(tool="usage", args=delta.model_dump(), result=text)
