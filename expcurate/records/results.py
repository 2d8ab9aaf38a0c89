"""What every stage result carries: the stage, a status, structured errors, model usage.

Also the statuses of what persists (a paper, a stage run, a task), so that no layer spells
them as bare strings.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, model_validator


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


class RunStatus(StrEnum):
    """Where a stage run stands: at work, at its checkpoint, decided, or broken."""

    running = "running"
    awaiting_review = "awaiting_review"
    approved = "approved"
    rejected = "rejected"
    failed = "failed"
    interrupted = "interrupted"  # its process died mid-run; history only, the stage reruns


class TaskStatus(StrEnum):
    """A task's decision at its current stage's checkpoint."""

    awaiting_review = "awaiting_review"
    approved = "approved"
    rejected = "rejected"
    retired = "retired"  # no longer drafted from the paper: kept with its history, unpublished


class PaperStatus(StrEnum):
    """A paper's state as the queue and `status` show it (derived from its stage runs)."""

    pending = "pending"
    running = "running"
    awaiting_review = "awaiting_review"
    ready = "ready"
    failed = "failed"


# A stage run in one of these can be run again.
RETRYABLE: tuple[RunStatus, ...] = (RunStatus.failed, RunStatus.rejected)
