"""What persists: SQLModel tables behind the store.

Task content is never updated in place: each change appends a `TaskRevision` holding the full
field set, with `base` pointing at the revision it was derived from. That pointer is what lets
a re-extraction merge new machine output with earlier human edits (a three-way merge).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from expcurate.records import Flag, PaperStatus, RunStatus, TaskStatus


def utcnow() -> datetime:
    return datetime.now(UTC)


class Paper(SQLModel, table=True):
    id: str = Field(primary_key=True)
    title: str = ""
    conference: str = ""
    pdf_source: str = ""  # path or URL as the curator gave it
    repo_source: str = ""
    requested_commit: str = ""
    pdf_sha256: str = ""
    commit: str = ""  # pinned by ingest
    model: str = ""
    auto_approve: bool = False  # curated with auto-approval: `advance` resumes with it
    status: str = PaperStatus.pending  # a PaperStatus
    stage: str = ""  # stage the paper is at
    error: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


# The lease: at most one running run per paper and stage, whichever database holds them.
RUNNING_ONLY = text("status = 'running'")
ONE_RUNNING_RUN = "one_running_run"


class StageRun(SQLModel, table=True):
    __table_args__ = (
        Index(
            ONE_RUNNING_RUN,
            "paper_id",
            "stage",
            unique=True,
            sqlite_where=RUNNING_ONLY,
            postgresql_where=RUNNING_ONLY,
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    paper_id: str = Field(foreign_key="paper.id", index=True)
    stage: str = Field(index=True)
    inputs_hash: str = Field(default="", index=True)
    model: str = ""
    prompt_version: str = ""
    pipeline_version: str = ""
    # running | awaiting_review | approved | rejected | failed
    status: str = RunStatus.running
    result_status: str = ""  # succeeded | partial | failed | skipped (the StageResult's)
    errors: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    artifact: str = ""  # path relative to the data dir
    cost_usd: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    items: int = 0
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    duration_s: float = 0.0
    current: bool = True  # the run a stage's checkpoint refers to
    owner: str = ""  # host:pid:token of the process running it (see store/lease.py)
    heartbeat_at: datetime | None = None  # renewed by the owner while the run is running


class Task(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("paper_id", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    paper_id: str = Field(foreign_key="paper.id", index=True)
    key: str  # stable across re-extraction (where in the paper the task came from)
    position: int = 0
    stage: str = "tasks"  # tasks | setup | package
    status: str = TaskStatus.awaiting_review  # a TaskStatus
    head: int = 0  # number of the latest revision; the optimistic-locking token
    # Stored as JSON; read them as records with `flag_list`, write them with the store.
    flags: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    updated_at: datetime = Field(default_factory=utcnow)

    def flag_list(self) -> list[Flag]:
        """The validators' findings on this task, as the records they were written from."""
        return [Flag.model_validate(f) for f in self.flags]


class TaskRevision(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("task_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    task_id: int = Field(foreign_key="task.id", index=True)
    number: int
    author: str  # "machine:<model>" or "reviewer:<name>"
    kind: str = "machine"  # machine | reviewer | merge
    stage: str = ""
    base: int | None = None  # revision this one was derived from
    fields: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    note: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class Review(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    paper_id: str = Field(foreign_key="paper.id", index=True)
    stage: str
    task_id: int | None = Field(default=None, foreign_key="task.id")
    stage_run_id: int | None = Field(default=None, foreign_key="stagerun.id")
    revision: int | None = None
    decision: str  # approve | approve_with_edits | reject | skip
    reason: str = ""
    reviewer: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class SignIn(SQLModel, table=True):
    """A browser's sign-in to the review app, kept across page reloads by a cookie.

    Only a hash of the cookie's token is stored, so a copy of the database signs no one in.
    """

    token_hash: str = Field(primary_key=True)
    username: str = Field(index=True)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class SignInFailure(SQLModel, table=True):
    """A wrong password, kept for a while: too many for one account or from one address in a
    short time refuse further sign-ins there until they age out."""

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(index=True)
    address: str = Field(default="", index=True)
    at: datetime = Field(default_factory=utcnow, index=True)


class Release(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    path: str = ""
    manifest_sha256: str = ""
    paper_count: int = 0
    task_count: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class Meta(SQLModel, table=True):
    key: str = Field(primary_key=True)
    value: str = ""


ROLES = ("curator", "reviewer", "admin")


class User(SQLModel, table=True):
    """A person who signs in to the review app; only a salted hash of the password is kept."""

    username: str = Field(primary_key=True)
    password_hash: str
    role: str = "reviewer"  # one of ROLES
    created_at: datetime = Field(default_factory=utcnow)
