"""Typed records passed between stages.

Every stage takes and returns one of these pydantic models; raw dicts live only in readers
and exporters. The published task mirrors EXP-Bench's schema field for field so that the
harness can read our releases unchanged.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

BBox = tuple[float, float, float, float]


class Stage(StrEnum):
    """The stages of one paper's DAG, in order."""

    ingest = "ingest"
    parse = "parse"
    mine = "mine"
    tasks = "tasks"
    setup = "setup"
    package = "package"


# Stages reviewed together: ingest, parse and mine form the first checkpoint.
STAGE_ORDER: tuple[Stage, ...] = tuple(Stage)
FIRST_PHASE: tuple[Stage, ...] = (Stage.ingest, Stage.parse, Stage.mine)
TASK_STAGES: tuple[Stage, ...] = (Stage.tasks, Stage.setup, Stage.package)


class Status(StrEnum):
    """Outcome of a piece of work (docling's vocabulary)."""

    succeeded = "succeeded"
    partial = "partial"
    failed = "failed"
    skipped = "skipped"


class Severity(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"


class StageError(BaseModel):
    """One structured problem: what stage, what kind, what to do, where."""

    stage: str
    category: str
    message: str
    severity: Severity = Severity.error
    page: int | None = None
    file: str | None = None


class Usage(BaseModel):
    """Model calls made for a result: summed per stage and per paper."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.latency_s += other.latency_s


class StageResult(BaseModel):
    """Base of every stage output: a status plus structured errors.

    `succeeded` with an error-severity problem recorded is impossible: the validator below is
    the one place that enforces it, by downgrading such a result to `partial`.
    """

    status: Status = Status.succeeded
    errors: list[StageError] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)

    @model_validator(mode="after")
    def _status_matches_errors(self) -> StageResult:
        if self.status == Status.succeeded and any(
            e.severity == Severity.error for e in self.errors
        ):
            self.status = Status.partial
        return self

    def add_error(
        self,
        stage: str,
        category: str,
        message: str,
        *,
        severity: Severity = Severity.error,
        page: int | None = None,
        file: str | None = None,
    ) -> None:
        self.errors.append(
            StageError(
                stage=stage,
                category=category,
                message=message,
                severity=severity,
                page=page,
                file=file,
            )
        )
        if severity == Severity.error and self.status == Status.succeeded:
            self.status = Status.partial


# ---------------------------------------------------------------- ingest


class IngestResult(StageResult):
    paper_id: str
    pdf_path: str = ""
    pdf_url: str = ""
    pdf_sha256: str = ""
    repo_path: str = ""
    repo_url: str = ""
    commit: str = ""


# ---------------------------------------------------------------- parse


class Section(BaseModel):
    number: str = ""
    title: str
    level: int = 1
    page: int = 1
    text: str = ""
    appendix: bool = False

    @property
    def heading(self) -> str:
        return f"{self.number} {self.title}".strip()


class Table(BaseModel):
    label: str  # "Table 3"
    caption: str
    page: int
    bbox: BBox | None = None
    rows: list[list[str]] = Field(default_factory=list)
    bold: list[list[bool]] = Field(default_factory=list)
    image: str = ""
    section: str = ""  # heading of the section the table sits in

    @property
    def number(self) -> str:
        return self.label.split()[-1] if self.label else ""


class Axis(BaseModel):
    """An axis of a plot, as printed: its title and the tick labels along it."""

    orientation: Literal["x", "y"]
    label: str
    ticks: list[str] = Field(default_factory=list)


class Figure(BaseModel):
    label: str  # "Figure 2"
    caption: str
    page: int
    bbox: BBox | None = None
    image: str = ""
    kind: Literal["raster", "vector", "mixed", "unknown"] = "unknown"
    section: str = ""
    # Text printed inside the figure (vector and mixed figures only; a raster has none):
    axes: list[Axis] = Field(default_factory=list)
    ticks: int = 0  # numbers printed inside: tick labels of plots
    legend: list[str] = Field(default_factory=list)  # other short labels: series, panels


class ParsedPaper(StageResult):
    title: str = ""
    authors: str = ""
    abstract: str = ""
    pages: int = 0
    sections: list[Section] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)
    references: str = ""

    def full_text(self) -> str:
        parts = [self.title, self.abstract]
        parts += [f"{s.heading}\n{s.text}" for s in self.sections]
        parts += [t.caption for t in self.tables] + [f.caption for f in self.figures]
        parts += [" ".join(c for row in t.rows for c in row) for t in self.tables]
        return "\n".join(parts)

    def code_links(self) -> list[str]:
        hosts = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co")
        return [link for link in self.links if any(h in link for h in hosts)]


# ---------------------------------------------------------------- mine


class RepoFile(BaseModel):
    path: str
    language: str = ""
    size: int = 0
    lines: int = 0
    skipped: str = ""  # why the file's content was not read ("binary", "too large", ...)


class CliFlag(BaseModel):
    name: str
    default: str = ""
    help: str = ""
    line: int = 0


class EntryPoint(BaseModel):
    """A file that can be run: `if __name__ == "__main__"` or a CLI parser."""

    path: str
    # main | script (top-level code) | argparse | click | typer | hydra | fire | absl | shell
    kind: str = "main"
    flags: list[CliFlag] = Field(default_factory=list)
    line: int = 0  # line of the main guard / parser
    calls: list[str] = Field(default_factory=list)  # repo files a launch script runs
    # False for a module that only defines a parser (imported by the real script).
    runnable: bool = True


class DocCommand(BaseModel):
    """A command written in a README or doc: what it runs and where it is written."""

    text: str
    doc: str
    line: int
    runs: list[str] = Field(default_factory=list)


class ConfigFile(BaseModel):
    path: str
    values: dict[str, str] = Field(default_factory=dict)


class ResultFile(BaseModel):
    path: str
    numbers: list[str] = Field(default_factory=list)


class RepoIndex(StageResult):
    root: str = ""
    commit: str = ""
    files: list[RepoFile] = Field(default_factory=list)
    commands: list[DocCommand] = Field(default_factory=list)
    entry_points: list[EntryPoint] = Field(default_factory=list)
    configs: list[ConfigFile] = Field(default_factory=list)
    results: list[ResultFile] = Field(default_factory=list)
    imports: dict[str, list[str]] = Field(default_factory=dict)
    # file -> repo files it names (config paths in string literals, flag values, commands)
    file_refs: dict[str, list[str]] = Field(default_factory=dict)

    def file(self, path: str) -> RepoFile | None:
        for f in self.files:
            if f.path == path:
                return f
        return None


# ---------------------------------------------------------------- tasks


class DesignComplexity(BaseModel):
    """EXP-Bench's design variables: name -> value (or list of values)."""

    model_config = ConfigDict(extra="allow")

    constant_variables: dict[str, Any] = Field(default_factory=dict)
    independent_variables: dict[str, Any] = Field(default_factory=dict)
    dependent_variables: dict[str, Any] = Field(default_factory=dict)


class Evidence(BaseModel):
    """A place in the paper a task rests on."""

    kind: Literal["table", "figure", "section", "text"]
    label: str
    page: int | None = None


class Flag(BaseModel):
    """A validator's finding on a task, shown to the reviewer."""

    check: str
    severity: Severity
    message: str
    paths: list[str] = Field(default_factory=list)


class TaskDraft(BaseModel):
    """One experiment as drafted from the paper (setup fields still empty)."""

    key: str  # stable across re-extraction: where in the paper it came from
    question: str
    method: str
    expected_outcome: str
    subsection_source: str = ""
    design_complexity: DesignComplexity = Field(default_factory=DesignComplexity)
    evidence: list[Evidence] = Field(default_factory=list)


class FollowUpIdea(BaseModel):
    idea: str
    experiment_design: str = ""
    subsection_source: str = ""


class DraftSet(StageResult):
    tasks: list[TaskDraft] = Field(default_factory=list)
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[FollowUpIdea] = Field(default_factory=list)


# ---------------------------------------------------------------- setup


class ToolCall(BaseModel):
    """One step of the setup agent, kept for the reviewer."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: str = ""


STEP_RE = re.compile(r"^(Step \d+|Final Step): .+")
REF_RE = re.compile(r"\(([^()\s]+?):(\d+)(?:-(\d+))?\)\s*$")


class Setup(BaseModel):
    """The recovered setup of one task in the repository."""

    source: list[str] = Field(default_factory=list)
    masked_source: list[str] = Field(default_factory=list)
    usage_instructions: str = ""
    requirements: list[str] = Field(default_factory=list)
    agent_instructions: str = ""
    no_answer: str = ""
    trace: list[ToolCall] = Field(default_factory=list)
    # Runners-up after `source`, best first: what a reviewer may add without searching again.
    candidates: list[str] = Field(default_factory=list)

    def published(self) -> dict[str, Any]:
        """The setup fields of a task in EXP-Bench's file (no trace, no runners-up)."""
        return self.model_dump(mode="json", exclude={"trace", "candidates"})


class SetupResult(StageResult):
    setups: dict[str, Setup] = Field(default_factory=dict)  # task key -> setup


# ---------------------------------------------------------------- published


class ExpBenchTask(BaseModel):
    """A task in EXP-Bench's published schema (extra annotations are kept)."""

    model_config = ConfigDict(extra="allow")

    question: str
    method: str = ""
    expected_outcome: str = ""
    design_complexity: DesignComplexity = Field(default_factory=DesignComplexity)
    source: list[str] = Field(default_factory=list)
    masked_source: list[str] = Field(default_factory=list)
    usage_instructions: str = ""
    requirements: list[str] = Field(default_factory=list)
    agent_instructions: str = ""
    no_answer: str = ""
    subsection_source: str = ""

    @classmethod
    def from_parts(cls, draft: TaskDraft, setup: Setup | None) -> ExpBenchTask:
        s = setup or Setup()
        return cls(
            question=draft.question,
            method=draft.method,
            expected_outcome=draft.expected_outcome,
            design_complexity=draft.design_complexity,
            subsection_source=draft.subsection_source,
            **s.published(),
        )


class ExpBenchFile(BaseModel):
    """One `<id>_complete_final.json`."""

    questions: list[ExpBenchTask] = Field(default_factory=list)
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[FollowUpIdea] = Field(default_factory=list)


class PaperListEntry(BaseModel):
    """One line of an EXP-Bench paper list (JSONL)."""

    model_config = ConfigDict(extra="allow")

    id: str
    title: str = ""
    pdf_url: str
    code_url: str
    conference: str = ""
    commit: str = ""


class TaskFields(ExpBenchTask):
    """The full field set a task revision holds: the published fields plus their evidence."""

    evidence: list[Evidence] = Field(default_factory=list)
    trace: list[ToolCall] = Field(default_factory=list)
    key: str = ""
    # Files a reviewer chose to hide as well (docs, logs that leak the answer); not published
    # as a field: the masked starter repository leaves them out.
    mask_also: list[str] = Field(default_factory=list)

    def published(self) -> ExpBenchTask:
        data = self.model_dump(mode="json", exclude={"evidence", "trace", "key", "mask_also"})
        return ExpBenchTask.model_validate(data)

    def draft(self) -> TaskDraft:
        return TaskDraft(
            key=self.key,
            question=self.question,
            method=self.method,
            expected_outcome=self.expected_outcome,
            subsection_source=self.subsection_source,
            design_complexity=self.design_complexity,
            evidence=self.evidence,
        )

    def with_setup(self, setup: Setup) -> TaskFields:
        return self.model_copy(
            update={
                "source": setup.source,
                "masked_source": setup.masked_source,
                "usage_instructions": setup.usage_instructions,
                "requirements": setup.requirements,
                "agent_instructions": setup.agent_instructions,
                "no_answer": setup.no_answer,
                "trace": setup.trace,
            }
        )

    @classmethod
    def from_draft(cls, draft: TaskDraft) -> TaskFields:
        return cls(
            key=draft.key,
            question=draft.question,
            method=draft.method,
            expected_outcome=draft.expected_outcome,
            subsection_source=draft.subsection_source,
            design_complexity=draft.design_complexity,
            evidence=draft.evidence,
        )
