"""Re-extraction: bring a curated paper to its repository's new commit (or its new PDF, or a
new pipeline or model) without losing a reviewer's work.

`reextract_paper` reruns exactly the stages whose inputs changed, in order, through the same
stage runners (which reuse a finished run with the same inputs, so nothing changed means
nothing rerun):

- ingest, with the paper pinned to the target commit; parse and mine when the PDF, the
  parser or miner version, or the commit changed. A rerun stage whose last run was approved
  and whose new run is clean keeps the approval (recorded as a review by `reextract`).
- tasks, when the parsed paper, the drafting model or its prompt version changed. A task
  whose new draft equals the draft the reviewer started from is left alone, approval and
  all; a changed draft is merged field by field with the reviewer's edits and goes back to
  review; a task no longer drafted is retired (kept with its history, never published).
  When any draft changed, the setup and package stages run again for those tasks once they
  are approved.
- when the code moved, every task's references are carried to the new commit through git's
  diff (`extractors.repo.carry`): requirement ranges, source and masked paths, script paths
  in the instructions. A task whose references all carried keeps its approval; one with a
  range whose lines changed or vanished goes back to review with a `reference_drift` flag
  showing the old and new code.
"""

from __future__ import annotations

from pathlib import Path

import git
from pydantic import BaseModel, Field

from expcurate.curation.pipeline import (
    PDF_SEEN,
    RUNNERS,
    _pause_if_asked,
    ingest_of,
    load_artifact,
    paper_dir,
    run_setup,
    save_artifact,
    write_atomically,
)
from expcurate.curation.review import IMPORTED_MODEL, refresh_paper_status
from expcurate.records import (
    IngestResult,
    PaperStatus,
    RunStatus,
    Severity,
    Stage,
    TaskFields,
    TaskStatus,
)
from expcurate.settings import Settings
from expcurate.store import Store
from expcurate.store.rows import Paper, StageRun

REVIEWER = "reextract"


class PaperReextract(BaseModel):
    """What re-extraction found and did for one paper."""

    paper_id: str
    changed: list[str] = Field(default_factory=list)  # what changed, in words
    rerun: list[str] = Field(default_factory=list)  # stages rerun
    carried: int = 0  # tasks whose references moved with the code, approval kept
    flagged: dict[int, str] = Field(default_factory=dict)  # task -> why it is back in review
    redrafted: list[int] = Field(default_factory=list)  # drafts changed: back in review
    resetup: list[int] = Field(default_factory=list)  # setups changed: back in review
    retired: list[int] = Field(default_factory=list)  # no longer drafted
    awaiting: str = ""  # the stage now waiting for a reviewer, if any
    error: str = ""  # why the paper could not be re-extracted (nothing was changed)

    def line(self) -> str:
        if self.error:
            return f"{self.paper_id}: not re-extracted: {self.error}"
        if not self.changed:
            return f"{self.paper_id}: nothing changed; nothing rerun"
        parts = [", ".join(self.changed)]
        parts.append(f"reran {', '.join(self.rerun)}" if self.rerun else "nothing rerun")
        counted = (
            (self.carried, "task(s) carried to the new code, approval kept"),
            (len(self.flagged), "task(s) back to review for drifted references"),
            (len(self.redrafted), "draft(s) changed, back to review"),
            (len(self.resetup), "setup(s) changed, back to review"),
            (len(self.retired), "task(s) retired"),
        )
        parts += [f"{n} {what}" for n, what in counted if n]
        if self.awaiting:
            parts.append(f"awaiting review at {self.awaiting}")
        return f"{self.paper_id}: " + "; ".join(parts)


def reextract_paper(
    store: Store,
    settings: Settings,
    paper_id: str,
    *,
    commit: str | None = None,
) -> PaperReextract:
    """Bring the paper to `commit` (default: the newest commit of the tracked branch) and to
    the current PDF, pipeline and models, rerunning only what changed. See the module."""
    from extractors.repo import RepoLoadError, resolve_repo

    report = PaperReextract(paper_id=paper_id)
    paper = store.require_paper(paper_id)
    before = store.current_runs(paper_id)
    # Whatever stops it here leaves the curated version as it is.
    report.error = _refusal(store, paper, before)
    if report.error:
        return report
    try:
        _, target = resolve_repo(
            paper.repo_source, commit or None, settings.clones_dir, update=commit is None
        )
    except RepoLoadError as exc:
        report.error = str(exc)
        return report
    report.error = _look_at_url_pdf(settings, paper)
    if report.error:
        return report
    # Where the paper stood before, kept until the work is done: a re-extraction killed
    # half-way is finished by the next one as if nothing had happened.
    start = _pending(settings, paper_id)
    if start is None:
        old = ingest_of(store, settings, paper_id)
        start = Start(
            commit=old.commit,
            pdf_sha256=old.pdf_sha256,
            approved=[s for s, r in before.items() if r.status == RunStatus.approved],
        )
        save_artifact(settings, paper_id, PENDING, start)
    if target != start.commit:
        report.changed.append(f"code {start.commit[:12]} → {target[:12]}")
    if target != paper.commit:
        store.upsert_paper(paper_id, requested_commit=target)

    for stage in (Stage.ingest, Stage.parse, Stage.mine):
        run = RUNNERS[stage](store, settings, paper_id)
        _rerun(report, stage, run, before.get(stage.value))
        if run.status == RunStatus.failed:
            report.error = f"{stage.value} failed: {store.require_paper(paper_id).error}"
            return report
        if stage.value in start.approved:
            _keep_approval(store, paper_id, stage, run)
    new = ingest_of(store, settings, paper_id)
    if new.pdf_sha256 != start.pdf_sha256:
        report.changed.append("the paper's PDF")
    parse = store.current_runs(paper_id)[Stage.parse.value]
    if Stage.tasks.value in before and parse.status == RunStatus.approved:
        _redraft(store, settings, paper_id, before, report)
    if new.commit != start.commit and not start.carried:
        _carry(store, settings, paper_id, start.commit, new, report)
        start.carried = True  # a later stop must not carry them twice
        save_artifact(settings, paper_id, PENDING, start)
    if Stage.setup.value in before and not report.error:
        _resetup(store, settings, paper_id, report)
    if not report.error:
        (paper_dir(settings, paper_id) / PENDING).unlink(missing_ok=True)
    refresh_paper_status(store, paper_id)
    paper = store.require_paper(paper_id)
    if paper.status == PaperStatus.awaiting_review:
        report.awaiting = paper.stage
    return report


def _look_at_url_pdf(settings: Settings, paper: Paper) -> str:
    """A PDF given by URL is downloaded again; when its bytes changed, their hash is recorded
    where ingest's inputs read it (so ingest reruns once, and again only on a new change).
    Returns why the PDF could not be looked at, or ""."""
    import tempfile

    from extractors.ingest import IngestError, fetch_pdf, is_url, sha256_file

    if not is_url(paper.pdf_source):
        return ""
    with tempfile.TemporaryDirectory(prefix="expcurate-pdf-") as tmp:
        try:
            sha = sha256_file(fetch_pdf(paper.pdf_source, Path(tmp)))
        except IngestError as exc:
            return str(exc)
    if sha != paper.pdf_sha256:
        write_atomically(paper_dir(settings, paper.id) / PDF_SEEN, sha)
    return ""


class Start(BaseModel):
    """Where a paper stood when its re-extraction began (kept as `PENDING`)."""

    commit: str
    pdf_sha256: str
    approved: list[str] = Field(default_factory=list)  # stages whose runs were approved
    carried: bool = False  # every task's references are at the new commit


PENDING = "reextract-pending.json"  # a `Start`, in the paper's artifacts, until the work is done


def _pending(settings: Settings, paper_id: str) -> Start | None:
    try:
        return Start.model_validate_json((paper_dir(settings, paper_id) / PENDING).read_text())
    except (OSError, ValueError):
        return None


def _refusal(store: Store, paper: Paper, runs: dict[str, StageRun]) -> str:
    if paper.model == IMPORTED_MODEL:
        return "an imported paper has no extraction to redo"
    if Stage.ingest.value not in runs:
        return "never extracted; run `expcurate extract` first"
    if paper.status == PaperStatus.failed:
        return "the paper failed; fix it and `expcurate retry` it first"
    held = store.running_runs(paper.id)
    if held:
        return f"its {held[0].stage} stage is running now; try again when it ends"
    return ""


def _rerun(report: PaperReextract, stage: Stage, run: StageRun, before: StageRun | None) -> bool:
    """Record a stage the runner ran again (not its cached run)."""
    if before is not None and run.id == before.id:
        return False
    report.rerun.append(stage.value)
    return True


def _keep_approval(store: Store, paper_id: str, stage: Stage, run: StageRun) -> None:
    """A first-phase stage whose run was approved before and is rerun cleanly keeps the
    approval: re-extraction does not ask a reviewer to look again at provenance or an index
    that merely followed the code. A partial run (errors) waits for a reviewer as usual."""
    if run.id is None or run.status != RunStatus.awaiting_review or run.errors:
        return
    store.set_run_status(run.id, RunStatus.approved)
    store.add_review(
        paper_id=paper_id,
        stage=stage.value,
        stage_run_id=run.id,
        decision="approved",
        reason="re-extraction: a clean rerun of a stage that was approved",
        reviewer=REVIEWER,
    )
    refresh_paper_status(store, paper_id)


def _redraft(
    store: Store,
    settings: Settings,
    paper_id: str,
    before: dict[str, StageRun],
    report: PaperReextract,
) -> None:
    """Draft the tasks again when their inputs changed; see the module for what happens to
    each task."""
    from expcurate.records import DraftSet

    heads = {t.id: t.head for t in store.tasks(paper_id)}
    run = RUNNERS[Stage.tasks](store, settings, paper_id)
    if not _rerun(report, Stage.tasks, run, before.get(Stage.tasks.value)):
        _back_at(store, paper_id, Stage.tasks)  # a re-extraction killed before it could
        return
    if run.status == RunStatus.failed:
        report.error = f"tasks failed: {store.require_paper(paper_id).error}"
        return
    if before[Stage.tasks.value].model != run.model:
        report.changed.append(f"tasks model {before[Stage.tasks.value].model} → {run.model}")
    elif before[Stage.tasks.value].prompt_version != run.prompt_version:
        report.changed.append("drafting prompt")
    drafted = {TaskFields.from_draft(d).key for d in load_artifact(settings, run, DraftSet).tasks}
    for task in store.tasks(paper_id):
        assert task.id is not None
        if task.key not in drafted:
            if task.status != TaskStatus.retired:
                store.set_task_status(task.id, TaskStatus.retired)
                report.retired.append(task.id)
        elif heads.get(task.id) != task.head:
            report.redrafted.append(task.id)
    _back_at(store, paper_id, Stage.tasks)


def _resetup(store: Store, settings: Settings, paper_id: str, report: PaperReextract) -> None:
    """A new setup model or agent version: the agent searches the code again for every task
    that went through setup. An equal setup leaves its task alone; a changed one is merged
    with the reviewer's edits and goes back to review at the setup checkpoint (package runs
    again for it once it is approved)."""
    from extractors.agent import prompt_version

    current = store.current_runs(paper_id).get(Stage.setup.value)
    if current is None:  # retired for re-drafted tasks: it runs again after their review
        return
    model = settings.stage_model("setup")
    version = prompt_version(model)
    if (current.model, current.prompt_version) == (model, version):
        return
    if current.model != model:
        report.changed.append(f"setup model {current.model} → {model}")
    else:
        report.changed.append("setup agent version")
    live = [
        (t.id, _last_setup(store, t.id))
        for t in store.tasks(paper_id)
        if t.id is not None
        and t.stage in (Stage.setup.value, Stage.package.value)
        and t.status not in (TaskStatus.retired, TaskStatus.rejected)
    ]
    heads = {task_id: store.require_task(task_id).head for task_id, _ in live}
    run = run_setup(store, settings, paper_id, tasks=live)
    report.rerun.append(Stage.setup.value)
    if run.status == RunStatus.failed:
        report.error = f"setup failed: {store.require_paper(paper_id).error}"
        return
    moved = [task_id for task_id, head in heads.items() if store.require_task(task_id).head != head]
    report.resetup += moved
    _back_at(store, paper_id, Stage.setup)


def _back_at(store: Store, paper_id: str, stage: Stage) -> None:
    """Live tasks sent back to `stage` run every later task stage again once they are
    approved: the later stages' current runs are taken off (they stay in the history)."""
    back = [
        t
        for t in store.tasks(paper_id, stage=stage.value)
        if t.status not in (TaskStatus.retired, TaskStatus.rejected)
    ]
    if not back:
        return
    runs = store.current_runs(paper_id)
    later = (Stage.setup, Stage.package) if stage == Stage.tasks else (Stage.package,)
    for each in later:
        run = runs.get(each.value)
        if run is not None and run.id is not None:
            store.retire_run(run.id)


def _last_setup(store: Store, task_id: int) -> TaskFields:
    """What the setup stage last wrote for the task: the agent works from it again, so an
    unchanged setup compares equal however the reviewer edited the task since (their edits
    are merged back in either way)."""
    for rev in reversed(store.revisions(task_id)):
        if rev.kind == "machine" and rev.stage == Stage.setup.value:
            return TaskFields.model_validate(rev.fields)
    return store.fields(store.require_task(task_id))


def _carried_to(store: Store, task_id: int, commit: str) -> bool:
    """Are the task's references already at `commit` (carried there by an earlier run that
    was stopped before it finished)?"""
    for rev in reversed(store.revisions(task_id)):
        if rev.kind == "carry":
            return rev.note.endswith(f" to {commit[:12]}")
        if rev.kind == "machine" and rev.stage in (Stage.setup.value, Stage.package.value):
            return False
    return False


def _carry(
    store: Store,
    settings: Settings,
    paper_id: str,
    old_commit: str,
    new: IngestResult,
    report: PaperReextract,
) -> None:
    """Carry every live task's references from the old commit to the new one (a task a
    killed re-extraction already carried is left as it is)."""
    from extractors.repo.carry import CodeDiff, Drift, carry_task
    from extractors.validate.catalog import flag

    repo = git.Repo(new.repo_path)
    try:
        diff: CodeDiff | None = CodeDiff(repo, old_commit, new.commit)
    except git.GitCommandError:  # the old commit is not in this clone any more
        diff = None
    note = f"references carried from {old_commit[:12]} to {new.commit[:12]}"
    reopened: set[str] = set()
    for task in store.tasks(paper_id):
        assert task.id is not None
        if task.status in (TaskStatus.retired, TaskStatus.rejected):
            continue
        fields = store.fields(task)
        if not (fields.requirements or fields.source or fields.masked_source):
            continue  # no setup yet: the setup stage will search the new code
        if _carried_to(store, task.id, new.commit):
            continue
        drifts: list[Drift]
        if diff is None:
            carried = fields
            drifts = [
                Drift(
                    f"the code moved from {old_commit[:12]} to {new.commit[:12]}, but the old "
                    "commit is not in the repository any more, so no reference could be "
                    "carried; check each against the new code",
                    (),
                )
            ]
        else:
            carried, drifts = carry_task(fields, diff)
        kept = [f for f in task.flag_list() if f.check != "reference_drift"]
        flags = kept + [
            flag("reference_drift", Severity.error, d.message, list(d.paths)) for d in drifts
        ]
        status = TaskStatus.awaiting_review if drifts else task.status
        store.put_revision(
            task.id,
            carried,
            author="machine:reextract",
            kind="carry",
            note=note,
            status=status,
            flags=flags,
        )
        if drifts:
            report.flagged[task.id] = drifts[0].message.split(". Compare", 1)[0]
            reopened.add(task.stage)
        elif carried != fields:
            report.carried += 1
        _pause_if_asked(settings, "carry", paper_id)
    runs = store.current_runs(paper_id)
    for stage in reopened:  # the stage's checkpoint is open again until they are decided
        run = runs.get(stage)
        if run is not None and run.id is not None and run.status == RunStatus.approved:
            store.set_run_status(run.id, RunStatus.awaiting_review)
