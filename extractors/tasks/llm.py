"""LLM drafting: EXP-Bench's flow, in as few calls as it allows.

1. One call labels every section `context` (setup), `experiment` (reports results) or `other`.
2. One call per experiment section drafts its tasks from the setup context, the section's text
   and the tables and figures it cites (their crops too when the model can see).
3. One call writes the main takeaways and follow-up ideas.
4. A refinement pass (`refine.py`) re-reads the setup sections, appendix included, and
   completes each section's drafted methods and design variables: one call per section.

A section whose answer stays unusable is recorded on the DraftSet and skipped; a spent budget
or an unreachable provider stops drafting and keeps what was drafted. Answers are checked by
their schemas (a question must be a question and must not give away its outcome's numbers), so
a violation is sent back to the model to fix instead of reaching the reviewer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from expcurate.records import (
    DesignComplexity,
    DesignVariables,
    DraftSet,
    Evidence,
    Figure,
    FollowUpIdea,
    ParsedPaper,
    Section,
    Severity,
    Status,
    Table,
    TaskDraft,
)
from expcurate.records.names import slug
from extractors.llm import (
    BudgetExceeded,
    LLMClient,
    LLMError,
    LLMUnavailable,
    Prompt,
    combined_version,
    load_prompt,
)
from extractors.llm.client import JSON_INSTRUCTION, REPAIR_INSTRUCTION
from extractors.numbers import find_numbers
from extractors.tasks.context import SETUP_TITLE, clean_title
from extractors.tasks.llm_inputs import (
    ABSTRACT_CHARS,
    chunks,
    cited_labels,
    clip,
    context_text,
    image_path,
    items_for,
    normalize_label,
    outline,
    render_figure,
    render_findings,
    render_table,
)
from extractors.tasks.refine import refine_tasks, refine_version_parts

PROMPTS_DIR = Path(__file__).parent / "prompts"
PROMPT_NAMES = ("classify", "draft", "takeaways")
MAX_IMAGES = 6  # crops attached to one drafting call
CLOSING_TITLE = re.compile(r"conclu|discussion|limitation|future|summary|outlook", re.I)

# ------------------------------------------------------------------ answer schemas


class SectionLabel(BaseModel):
    id: int
    kind: Literal["context", "experiment", "other"]


class SectionLabels(BaseModel):
    sections: list[SectionLabel]


class DraftedTask(BaseModel):
    question: str
    method: str = Field(min_length=1)
    expected_outcome: str = Field(min_length=1)
    subsection_source: str = ""
    design_complexity: DesignVariables = Field(default_factory=DesignVariables)
    evidence: list[str] = Field(default_factory=list)

    @field_validator("question")
    @classmethod
    def _is_a_question(cls, value: str) -> str:
        value = value.strip()
        if not value.endswith("?"):
            raise ValueError("must be a real question that ends with '?'")
        return value

    @model_validator(mode="after")
    def _question_hides_outcome(self) -> DraftedTask:
        # Decimals only: integers in both are usually settings ("ResNet-50", "100 epochs").
        outcome = set(find_numbers(self.expected_outcome))
        leaked = [n for n in find_numbers(self.question) if "." in n and n in outcome]
        if leaked:
            raise ValueError(
                f"the question gives away outcome numbers ({', '.join(leaked)}); "
                "keep results out of the question"
            )
        return self


class SectionTasks(BaseModel):
    tasks: list[DraftedTask] = Field(default_factory=list)


class Idea(BaseModel):
    idea: str = Field(min_length=1)
    experiment_design: str = ""
    subsection_source: str = ""


class Takeaways(BaseModel):
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[Idea] = Field(default_factory=list)


# ------------------------------------------------------------------ prompts


@functools.cache
def prompts() -> dict[str, Prompt]:
    return {name: load_prompt(PROMPTS_DIR / f"{name}.md") for name in PROMPT_NAMES}


@functools.cache
def prompt_version() -> str:
    """The prompts' hashes plus everything else that shapes the requests (client wording, schemas)."""
    shaping = json.dumps(
        [JSON_INSTRUCTION, REPAIR_INSTRUCTION]
        + [s.model_json_schema() for s in (SectionLabels, SectionTasks, Takeaways)]
        + refine_version_parts(),
        sort_keys=True,
    )
    extra = hashlib.sha256(shaping.encode()).hexdigest()[:12]
    return combined_version([p.version for p in prompts().values()] + [extra], "tasks-llm-")


def _messages(prompt: str, user: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": prompts()[prompt].text},
        {"role": "user", "content": user},
    ]


# ------------------------------------------------------------------ the three steps


def classify_sections(paper: ParsedPaper, client: LLMClient, result: DraftSet) -> list[str]:
    """Each section's kind; rule-based kinds (recorded as an error) when the model fails."""
    user = f"Paper: {paper.title}\n\nSections:\n{outline(paper)}"
    try:
        answer = client.complete_json(
            _messages("classify", user), SectionLabels, purpose="classify sections"
        )
    except LLMUnavailable:
        raise
    except LLMError as e:
        result.add_error("tasks", "classify", f"{e}; sections were classified by rule instead")
        return rule_kinds(paper)
    labelled = [label for label in answer.sections if 0 <= label.id < len(paper.sections)]
    if not labelled:  # `{"sections": []}` validates, but must not make every section "other"
        result.add_error(
            "tasks",
            "classify",
            f"the model labelled none of the {len(paper.sections)} sections; they were "
            "classified by rule",
            severity=Severity.warning,
        )
        return rule_kinds(paper)
    kinds = ["other"] * len(paper.sections)
    for label in labelled:
        kinds[label.id] = label.kind
    return kinds


def rule_kinds(paper: ParsedPaper) -> list[str]:
    """Fallback: a section citing tables or figures reports results; setup titles are context."""
    kinds = []
    for s in paper.sections:
        tables, figures = items_for(s, paper)
        if tables or figures:
            kinds.append("experiment")
        elif SETUP_TITLE.search(s.title):
            kinds.append("context")
        else:
            kinds.append("other")
    return kinds


def draft_section(
    paper: ParsedPaper,
    index: int,
    kinds: list[str],
    client: LLMClient,
    images_root: Path | None,
    *,
    part: int = 0,
) -> list[DraftedTask]:
    """Tasks of one experiment section, or of its `part`-th piece when it is long."""
    section = paper.sections[index]
    pieces = chunks(section.text)
    text = pieces[part]
    # A piece shows the tables it cites; those only placed in the section go with the first.
    tables, figures = items_for(section, paper, text, placed=part == 0)
    context = [j for j, kind in enumerate(kinds) if kind == "context" and j != index]
    parts = [f"Paper: {paper.title}", f"Abstract:\n{clip(paper.abstract, ABSTRACT_CHARS)}"]
    setup = context_text(paper, context, near=index)
    if setup:
        parts.append(f"Setup context from other sections:\n{setup}")
    which = f" (part {part + 1} of {len(pieces)})" if len(pieces) > 1 else ""
    parts.append(f"Section to draft tasks from: {section.heading}{which}\n{text}")
    if tables:
        parts.append(
            "Tables cited in or placed in this section:\n\n"
            + "\n\n".join(render_table(t) for t in tables)
        )
    if figures:
        parts.append(
            "Figures cited in or placed in this section (captions):\n"
            + "\n".join(render_figure(f) for f in figures)
        )
    said = render_findings(paper, [*tables, *figures])
    if said:
        parts.append(said)
    images: list[Path] = []
    shown: list[str] = []
    if client.can_see:
        crops: list[Table | Figure] = [*tables, *figures]
        for item in crops:
            path = image_path(item, images_root)
            if path is not None and len(images) < MAX_IMAGES:
                images.append(path)
                shown.append(item.label)
    if shown:
        parts.append(f"Images attached, in this order: {', '.join(shown)}.")
    answer = client.complete_json(
        _messages("draft", "\n\n".join(parts)),
        SectionTasks,
        images=images,
        purpose=f"draft {section.heading}{which}",
    )
    return answer.tasks


def draft_sections(
    paper: ParsedPaper,
    kinds: list[str],
    client: LLMClient,
    images_root: Path | None,
    result: DraftSet,
) -> None:
    """Every experiment section's tasks onto `result`; a failed piece is recorded and skipped."""
    seen: set[str] = set()
    for index, kind in enumerate(kinds):
        section = paper.sections[index]
        tables, figures = items_for(section, paper)
        if kind != "experiment" or not (section.text.strip() or tables or figures):
            continue
        ident = _ident(section, index)
        if any(key.startswith(f"sec-{ident}:") for key in seen):  # a number parsed twice
            ident = f"{ident}-{index}"
        count = 0
        for part in range(len(chunks(section.text))):
            try:
                drafted = draft_section(paper, index, kinds, client, images_root, part=part)
            except LLMUnavailable:
                raise
            except LLMError as e:
                result.add_error("tasks", "draft", f"{section.heading}: {e}", page=section.page)
                continue
            for task in drafted:
                count += 1
                key = f"sec-{ident}:{count}"
                seen.add(key)
                result.tasks.append(to_draft(task, key, section, paper))


def write_takeaways(paper: ParsedPaper, client: LLMClient, tasks: list[TaskDraft]) -> Takeaways:
    closing = [s for s in paper.sections if CLOSING_TITLE.search(s.title) and not s.appendix]
    parts = [f"Paper: {paper.title}", f"Abstract:\n{clip(paper.abstract, ABSTRACT_CHARS)}"]
    for s in closing[:3]:
        parts.append(f"### {s.heading}\n{clip(s.text, 3_000)}")
    if tasks:
        listed = "\n".join(f"- {t.question} ({t.subsection_source})" for t in tasks[:40])
        parts.append(f"Research questions drafted from the experiments:\n{listed}")
    return client.complete_json(
        _messages("takeaways", "\n\n".join(parts)), Takeaways, purpose="takeaways"
    )


# ------------------------------------------------------------------ records


def _ident(section: Section, index: int) -> str:
    if section.number:
        return section.number.strip(".")
    part = slug(section.title)
    return part or f"s{index}"


def _evidence(task: DraftedTask, section: Section, paper: ParsedPaper) -> list[Evidence]:
    items: list[Table | Figure] = [*paper.tables, *paper.figures]
    known = {normalize_label(x.label) or x.label: x for x in items}
    labels = [normalize_label(label) for label in task.evidence]
    labels += cited_labels(task.expected_outcome)
    out: list[Evidence] = []
    for label in dict.fromkeys(x for x in labels if x):
        item = known.get(label)
        kind: Literal["table", "figure"] = "table" if label.startswith("Table") else "figure"
        out.append(
            Evidence(
                kind=kind, label=item.label if item else label, page=item.page if item else None
            )
        )
    return out or [Evidence(kind="section", label=clean_title(section.heading), page=section.page)]


def _subsection(task: DraftedTask, section: Section, paper: ParsedPaper) -> str:
    """The model's heading when it names a real section, else the drafted section's."""
    given = clean_title(task.subsection_source).lower()
    for s in paper.sections:
        if given and given in (clean_title(s.heading).lower(), clean_title(s.title).lower()):
            return clean_title(s.heading)
    return clean_title(section.heading)


def to_draft(task: DraftedTask, key: str, section: Section, paper: ParsedPaper) -> TaskDraft:
    design = task.design_complexity
    return TaskDraft(
        key=key,
        question=task.question,
        method=task.method.strip(),
        expected_outcome=task.expected_outcome.strip(),
        subsection_source=_subsection(task, section, paper),
        design_complexity=DesignComplexity(
            constant_variables=design.constant_variables,
            independent_variables=design.independent_variables,
            dependent_variables=design.dependent_variables,
        ),
        evidence=_evidence(task, section, paper),
    )


# ------------------------------------------------------------------ entry point


def draft_with_llm(
    paper: ParsedPaper, client: LLMClient, *, images_root: Path | None = None
) -> DraftSet:
    """Draft the paper's tasks with `client`; see the module docstring for the flow.

    `images_root` is the folder the parsed paper's relative image paths start from.
    """
    result = DraftSet()
    if not paper.sections:
        result.add_error("tasks", "input", "the parsed paper has no sections to draft from")
    try:
        kinds = classify_sections(paper, client, result) if paper.sections else []
        draft_sections(paper, kinds, client, images_root, result)
        try:
            notes = write_takeaways(paper, client, result.tasks)
        except LLMUnavailable:
            raise
        except LLMError as e:
            result.add_error("tasks", "takeaways", str(e))
        else:
            result.main_takeaways = [t.strip() for t in notes.main_takeaways if t.strip()]
            result.follow_up_work_ideas = [
                FollowUpIdea(**idea.model_dump()) for idea in notes.follow_up_work_ideas
            ]
        # Last, so a budget spent here costs polish, not tasks or takeaways.
        refine_tasks(paper, kinds, client, result)
    except BudgetExceeded as e:
        result.add_error("tasks", "budget", f"{e}; kept the {len(result.tasks)} tasks drafted")
    except LLMUnavailable as e:
        result.add_error("tasks", "provider", f"{e}; kept the {len(result.tasks)} tasks drafted")
    result.usage = client.usage.model_copy()
    for warning in client.warnings:
        result.add_error("tasks", "cost", warning, severity=Severity.warning)
    if not result.tasks and any(e.severity == Severity.error for e in result.errors):
        result.status = Status.failed
    return result


__all__ = ["draft_with_llm", "prompt_version", "prompts", "rule_kinds"]
