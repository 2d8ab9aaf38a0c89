"""The refinement pass: re-read the paper's setup for what the drafted tasks left out.

A task is drafted from one results section, with only a clipped share of the setup context
beside it, so its method often lacks the datasets, models or hyperparameter values that live
in an "Implementation details" section or the appendix. This pass shows the drafted tasks of
one section together with the paper's setup sections (appendix included, with a larger budget
than drafting has) and asks for a completed `method` and `design_complexity` only.

One call per drafted section (at most `BATCH` tasks per call) keeps the count low: a paper
with five experiment sections costs five more calls, not one per task. The answer echoes each
task's expected outcome, and an echo whose numbers differ from the draft's is rejected through
the client's repair loop: a model that "corrects" a result or mixes up two tasks must not
rewrite their methods. A section whose answer stays unusable keeps its drafts unchanged, with
the reason recorded on the DraftSet. Questions, outcomes and evidence are never replaced.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from expcurate.records import DesignComplexity, DesignVariables, DraftSet, ParsedPaper, TaskDraft
from extractors.llm import LLMClient, LLMError, LLMUnavailable, Prompt, load_prompt
from extractors.numbers import find_numbers
from extractors.tasks.context import HYPER_SENTENCE, SETUP_TITLE, clean_title
from extractors.tasks.llm_inputs import ABSTRACT_CHARS, clip

PROMPT_FILE = Path(__file__).parent / "prompts" / "refine.md"
BATCH = 6  # tasks refined in one call
CONTEXT_CHARS = 12_000  # all setup sections together (drafting has 8,000)
CONTEXT_SECTION_CHARS = 3_000


class RefinedTask(BaseModel):
    id: int
    expected_outcome: str  # the drafted one, copied: the check that the right task is meant
    method: str = Field(min_length=1)
    design_complexity: DesignVariables = Field(default_factory=DesignVariables)


class Refinement(BaseModel):
    """The answer for one batch; `drafted` is set per call by `refinement_schema`."""

    drafted: ClassVar[tuple[TaskDraft, ...]] = ()
    tasks: list[RefinedTask] = Field(default_factory=list)

    @model_validator(mode="after")
    def _keeps_the_results(self) -> Refinement:
        problems: list[str] = []
        seen: set[int] = set()
        for task in self.tasks:
            if not 0 <= task.id < len(self.drafted) or task.id in seen:
                problems.append(f"task id {task.id} is not one of the drafted ids or repeats")
                continue
            seen.add(task.id)
            before = self.drafted[task.id]
            want, got = find_numbers(before.expected_outcome), find_numbers(task.expected_outcome)
            if sorted(want) != sorted(got):
                problems.append(
                    f"task {task.id}: expected_outcome must be copied unchanged; its numbers "
                    f"were {', '.join(want) or 'none'} and are now {', '.join(got) or 'none'}"
                )
            known = set(find_numbers(before.method))
            leaked = [
                n for n in find_numbers(task.method) if "." in n and n in want and n not in known
            ]
            if leaked:
                problems.append(
                    f"task {task.id}: the method gives away outcome numbers "
                    f"({', '.join(leaked)}); describe how to run it, not what it finds"
                )
        if problems:
            raise ValueError("; ".join(problems))
        return self


def refinement_schema(drafted: list[TaskDraft]) -> type[Refinement]:
    """The answer schema of one call, bound to the drafts it may complete."""

    # Same name and JSON schema as the base: the request (and its cache key) stays the same.
    bound: type[Refinement] = type("Refinement", (Refinement,), {"__module__": __name__})
    bound.drafted = tuple(drafted)
    return bound


@functools.cache
def refine_prompt() -> Prompt:
    return load_prompt(PROMPT_FILE)


def setup_sections(paper: ParsedPaper, kinds: list[str]) -> list[int]:
    """Sections that hold setup: labelled context, or titled or written like setup.

    Appendix sections count here (drafting leaves most of them out for budget): that is
    where papers put their hyperparameter tables and dataset details.
    """
    chosen = []
    for i, s in enumerate(paper.sections):
        kind = kinds[i] if i < len(kinds) else "other"
        by_title = bool(SETUP_TITLE.search(s.title)) and kind != "experiment"
        by_text = s.appendix and kind != "experiment" and bool(HYPER_SENTENCE.search(s.text))
        if s.text.strip() and (kind == "context" or by_title or by_text):
            chosen.append(i)
    return chosen


def setup_text(paper: ParsedPaper, indices: list[int]) -> str:
    """Setup sections in reading order, main text before appendix, within budget."""
    parts: list[str] = []
    used = 0
    for i in sorted(indices, key=lambda i: (paper.sections[i].appendix, i)):
        room = min(CONTEXT_SECTION_CHARS, CONTEXT_CHARS - used)
        if room < 200:
            break
        s = paper.sections[i]
        body = clip(s.text, room)
        parts.append(f"### {s.heading}{' (appendix)' if s.appendix else ''}\n{body}")
        used += len(body)
    return "\n\n".join(parts)


def _groups(tasks: list[TaskDraft]) -> dict[str, list[int]]:
    """Task positions by the section they were drafted from (the key's prefix)."""
    out: dict[str, list[int]] = {}
    for position, task in enumerate(tasks):
        out.setdefault(task.key.split(":", 1)[0], []).append(position)
    return out


def _shown(task: TaskDraft, ident: int) -> dict[str, Any]:
    return {
        "id": ident,
        "question": task.question,
        "method": task.method,
        "expected_outcome": task.expected_outcome,
        "design_complexity": task.design_complexity.model_dump(mode="json"),
    }


def refine_batch(
    paper: ParsedPaper, drafted: list[TaskDraft], setup: str, client: LLMClient, heading: str
) -> list[TaskDraft]:
    """`drafted` with methods and design variables completed from `setup`, in order."""
    listed = json.dumps([_shown(t, i) for i, t in enumerate(drafted)], indent=1)
    user = "\n\n".join(
        [
            f"Paper: {paper.title}",
            f"Abstract:\n{clip(paper.abstract, ABSTRACT_CHARS)}",
            f"Setup sections of the paper:\n{setup}",
            f"Tasks drafted from section {heading}, to complete:\n{listed}",
        ]
    )
    messages = [
        {"role": "system", "content": refine_prompt().text},
        {"role": "user", "content": user},
    ]
    answer = client.complete_json(messages, refinement_schema(drafted), purpose=f"refine {heading}")
    out = list(drafted)
    for refined in answer.tasks:
        before = drafted[refined.id]
        design = before.design_complexity.model_dump()
        for name, value in refined.design_complexity.model_dump().items():
            if value:  # an empty answer part keeps what was drafted
                design[name] = value
        out[refined.id] = before.model_copy(
            update={
                "method": refined.method.strip(),
                "design_complexity": DesignComplexity.model_validate(design),
            }
        )
    return out


def refine_tasks(paper: ParsedPaper, kinds: list[str], client: LLMClient, result: DraftSet) -> None:
    """Refine `result.tasks` in place, one call per drafted section (see module docstring).

    No call is made when the paper has no setup section to re-read.
    """
    setup = setup_text(paper, setup_sections(paper, kinds))
    if not setup or not result.tasks:
        return
    for positions in _groups(result.tasks).values():
        heading = result.tasks[positions[0]].subsection_source or "the paper"
        for start in range(0, len(positions), BATCH):
            batch = positions[start : start + BATCH]
            try:
                refined = refine_batch(
                    paper, [result.tasks[p] for p in batch], setup, client, heading
                )
            except LLMUnavailable:
                raise
            except LLMError as e:
                result.add_error(
                    "tasks",
                    "refine",
                    f"{heading}: {e}; kept the drafted method and design variables",
                    page=_page(paper, heading),
                )
                continue
            for position, task in zip(batch, refined, strict=True):
                result.tasks[position] = task


def _page(paper: ParsedPaper, heading: str) -> int | None:
    wanted = clean_title(heading).lower()
    for s in paper.sections:
        if clean_title(s.heading).lower() == wanted:
            return s.page
    return None


def refine_version_parts() -> list[str]:
    """What of this pass shapes its requests, for the strategy's prompt version."""
    return [refine_prompt().version, json.dumps(Refinement.model_json_schema(), sort_keys=True)]


__all__ = ["Refinement", "refine_prompt", "refine_tasks", "refine_version_parts", "setup_sections"]
