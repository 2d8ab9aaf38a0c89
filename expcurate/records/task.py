"""The task schema, once: every field a task has, which stage fills it, and what is published.

A task is EXP-Bench's published record plus the evidence a reviewer needs. Its fields come in
two parts, and the classes are built from them so that each field is declared exactly once:

- `DraftPart`: what drafting fills from the paper (question, method, outcome, design).
- `SetupPart`: what setup recovery fills from the code (files, commands, steps, masking).

`ExpBenchTask` (the published schema) is the two parts together; `TaskFields` (what a task
revision holds) adds the evidence and the machine's bookkeeping. `TaskDraft` and `Setup` are
the two stages' outputs. The field groups every other module needs (text fields, list fields,
repository paths, the required core, the published order) are read off these classes, so
adding a field is a change here plus the code that fills it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from expcurate.records.repo import ToolCall
from expcurate.records.results import Severity, StageResult


class _Marker:
    """A tag on a field's annotation that field groups are derived from."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


CORE = _Marker("core")  # a task is meaningless without it
PATHS = _Marker("repository paths")  # repo-relative file paths, confined to the repository
BOOKKEEPING = _Marker("bookkeeping")  # the machine's, never edited, diffed or merged

RepoPaths = Annotated[list[str], PATHS]


class DesignVariables(BaseModel):
    """EXP-Bench's design variables: name -> value (or list of values), in three kinds.

    The strict form, as a model is asked to answer it (no other keys).
    """

    constant_variables: dict[str, Any] = Field(default_factory=dict)
    independent_variables: dict[str, Any] = Field(default_factory=dict)
    dependent_variables: dict[str, Any] = Field(default_factory=dict)


class DesignComplexity(DesignVariables):
    """The design variables as stored and published: annotations beside them are kept."""

    model_config = ConfigDict(extra="allow")


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


class FollowUpIdea(BaseModel):
    idea: str
    experiment_design: str = ""
    subsection_source: str = ""


# ---------------------------------------------------------------- the two parts


class DraftPart(BaseModel):
    """The fields drafting fills from the paper."""

    question: Annotated[str, CORE] = Field(title="Question")
    method: Annotated[str, CORE] = Field("", title="Method")
    expected_outcome: Annotated[str, CORE] = Field("", title="Expected outcome")
    design_complexity: Annotated[DesignComplexity, CORE] = Field(
        default_factory=DesignComplexity, title="Design variables"
    )
    subsection_source: str = Field("", title="Subsection source")


class SetupPart(BaseModel):
    """The fields setup recovery fills from the repository."""

    source: RepoPaths = Field(default_factory=list, title="Source files (one per line)")
    masked_source: RepoPaths = Field(default_factory=list, title="Masked files (one per line)")
    usage_instructions: str = Field("", title="Usage instructions")
    requirements: list[str] = Field(default_factory=list, title="Requirements (one step per line)")
    agent_instructions: str = Field("", title="Agent instructions")
    no_answer: str = Field("", title="No answer (why no implementation exists)")


# ---------------------------------------------------------------- stage outputs


class TaskDraft(DraftPart):
    """One experiment as drafted from the paper (setup fields still empty)."""

    key: Annotated[str, BOOKKEEPING] = ""  # stable across re-extraction: where it came from
    evidence: list[Evidence] = Field(default_factory=list)


class Setup(SetupPart):
    """The recovered setup of one task in the repository, with how it was found."""

    trace: Annotated[list[ToolCall], BOOKKEEPING] = Field(default_factory=list)
    # Runners-up after `source`, best first: what a reviewer may add without searching again.
    candidates: list[str] = Field(default_factory=list)


class DraftSet(StageResult):
    tasks: list[TaskDraft] = Field(default_factory=list)
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[FollowUpIdea] = Field(default_factory=list)


class SetupResult(StageResult):
    setups: dict[str, Setup] = Field(default_factory=dict)  # task key -> setup


# ---------------------------------------------------------------- published and stored


class ExpBenchTask(SetupPart, DraftPart):
    """A task in EXP-Bench's published schema (extra annotations are kept)."""

    model_config = ConfigDict(extra="allow")

    @classmethod
    def from_parts(cls, draft: DraftPart, setup: SetupPart | None) -> ExpBenchTask:
        return TaskFields.compose(draft, setup).published()


class ExpBenchFile(BaseModel):
    """One `<id>_complete_final.json` (our commands add `repository`; extras are kept)."""

    model_config = ConfigDict(extra="allow")

    questions: list[ExpBenchTask] = Field(default_factory=list)
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[FollowUpIdea] = Field(default_factory=list)


class TaskFields(ExpBenchTask):
    """The full field set a task revision holds: the published fields plus their evidence."""

    evidence: list[Evidence] = Field(default_factory=list, title="Evidence")
    trace: Annotated[list[ToolCall], BOOKKEEPING] = Field(default_factory=list)
    key: Annotated[str, BOOKKEEPING] = ""
    # Files a reviewer chose to hide as well (docs, logs that leak the answer); not published
    # as a field: the masked starter repository leaves them out.
    mask_also: RepoPaths = Field(default_factory=list, title="Also hidden (one per line)")

    def published(self) -> ExpBenchTask:
        data = self.model_dump(mode="json", exclude=set(UNPUBLISHED_FIELDS))
        return ExpBenchTask.model_validate(data)

    def draft(self) -> TaskDraft:
        return project(self, TaskDraft)

    def setup(self) -> Setup:
        return project(self, Setup)

    def with_setup(self, setup: Setup) -> TaskFields:
        """These fields with the setup's part (and its trace) replaced."""
        update = {name: getattr(setup, name) for name in (*SETUP_FIELDS, "trace")}
        return self.model_copy(update=update)

    @classmethod
    def compose(cls, draft: DraftPart, setup: SetupPart | None = None) -> TaskFields:
        """One task from a stage's draft and (when found) its setup."""
        data = {name: getattr(draft, name) for name in cls.model_fields if hasattr(draft, name)}
        if setup is not None:
            data |= {n: getattr(setup, n) for n in cls.model_fields if hasattr(setup, n)}
        return cls.model_validate(data)

    @classmethod
    def from_draft(cls, draft: TaskDraft) -> TaskFields:
        return cls.compose(draft)


M = TypeVar("M", bound=BaseModel)


def project(record: BaseModel, target: type[M]) -> M:
    """The fields of `record` that `target` has, as a `target` (a view, not a conversion)."""
    data = {name: getattr(record, name) for name in target.model_fields if hasattr(record, name)}
    return target.model_validate(data)


# ---------------------------------------------------------------- field groups


def _fields_with(model: type[BaseModel], marker: _Marker) -> tuple[str, ...]:
    return tuple(n for n, f in model.model_fields.items() if marker in f.metadata)


def _fields_of_type(model: type[BaseModel], kind: Any) -> tuple[str, ...]:
    return tuple(n for n, f in model.model_fields.items() if f.annotation == kind)


DRAFT_FIELDS: tuple[str, ...] = tuple(DraftPart.model_fields)
SETUP_FIELDS: tuple[str, ...] = tuple(SetupPart.model_fields)
PUBLISHED_FIELDS: tuple[str, ...] = tuple(ExpBenchTask.model_fields)
UNPUBLISHED_FIELDS: tuple[str, ...] = tuple(
    n for n in TaskFields.model_fields if n not in PUBLISHED_FIELDS
)
TEXT_FIELDS: tuple[str, ...] = _fields_of_type(ExpBenchTask, str)
LIST_FIELDS: tuple[str, ...] = _fields_of_type(ExpBenchTask, list[str])
PATH_FIELDS: tuple[str, ...] = _fields_with(TaskFields, PATHS)
CORE_FIELDS: tuple[str, ...] = _fields_with(TaskFields, CORE)
REQUIRED_TEXT: tuple[str, ...] = tuple(n for n in CORE_FIELDS if n in TEXT_FIELDS)
BOOKKEEPING_FIELDS: tuple[str, ...] = _fields_with(TaskFields, BOOKKEEPING)
# What a reviewer edits, in the order the form, the diff and the history show it.
EDITED_FIELDS: tuple[str, ...] = tuple(
    n for n in TaskFields.model_fields if n not in BOOKKEEPING_FIELDS
)
DESIGN_PARTS: tuple[str, ...] = tuple(DesignComplexity.model_fields)
VARIABLE_KINDS: tuple[str, ...] = tuple(p.removesuffix("_variables") for p in DESIGN_PARTS)


def field_title(name: str) -> str:
    """The label a form shows for a task field."""
    info = TaskFields.model_fields[name]
    return info.title or name.replace("_", " ").capitalize()
