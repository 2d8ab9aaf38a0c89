"""Stage runners: the store-aware step around each extractor.

Each runner hashes its inputs, reuses a finished run with the same hash (so a re-run adds no
duplicates), calls the pure extractor, saves the output as an artifact, and ends at a
checkpoint: the run (and, for task stages, each task) is left `awaiting_review`, or approved
when auto-approval is on and the validators are clean. Flows call these; tests can too,
without Prefect.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field

from expcurate.records import (
    DraftSet,
    Flag,
    IngestResult,
    PaperStatus,
    ParsedPaper,
    RepoIndex,
    RunStatus,
    Setup,
    Severity,
    Stage,
    StageError,
    StageResult,
    Status,
    TaskFields,
    TaskStatus,
)
from expcurate.settings import PIPELINE_VERSION, Settings
from expcurate.store import Store
from expcurate.store.errors import LeaseLost
from expcurate.store.lease import HEARTBEAT_S, owner_gone
from expcurate.store.rows import Paper, StageRun

M = TypeVar("M", bound=BaseModel)

PARSER_VERSION = "paper-1"
MINER_VERSION = "repo-19"  # repo-2: option aliases (--ds for --dataset); repo-3: switches;
# repo-4: the values code tests an option for (`args.algo == "trace"`); repo-5: a program
# takes the options of the parser-only module it imports (`EntryPoint.parser`); repo-6: a
# documented command after a shell prompt such as `~$ ` or `user@host:~/src$ `; repo-7: the
# options a program adds from a config file's keys (`for k, v in cfg.items(): add_argument`);
# repo-8: the values `match` statements and the modules a program imports test its options for;
# repo-9: a documented command inside a `for x in ...; do ... done` loop keeps its loop;
# repo-10: a documented command run through `nice` (`nice -n 10 python train.py`);
# repo-11: the values an option takes from the files a path built from it names
# (`f"config/{args.pattern}/{args.dataset}.yaml"`: Cora, USAir, ...); repo-12: a parser a
# package re-exports; repo-13: the files a program opens at paths built from its options
# (`EntryPoint.opens`); repo-14: a README is one shell session across its code blocks (`cd
# evaluate` in one, `python evaluate.py` in the next); repo-15: a sub-project's launch script runs
# the program of the folders above it (`Formers/FEDformer/scripts/x.sh`: `python run.py` is
# `Formers/FEDformer/run.py`); repo-16: a documented command is kept whole past 600
# characters (a thirty-option `torchrun` training); repo-17: a module attaching handlers to its
# logger at import time (`handler.setFormatter`, `logger.addHandler`) is no script; repo-18: a
# documented command's bare script name the repository holds once (`python eval_pass_rate.py`)
# is that file, unless the name is a common one (train.py, setup.py); repo-19: a notebook's
# imports are mined (the keys the modules it imports read are its own to set)


class StageBlocked(RuntimeError):
    """A stage was asked to run before its inputs exist (a bug in the caller)."""


def digest(*parts: object) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(json.dumps(part, sort_keys=True, default=str).encode())
        h.update(b"\x00")
    return h.hexdigest()


# ------------------------------------------------------------------ artifacts


def paper_dir(settings: Settings, paper_id: str) -> Path:
    return settings.artifacts_dir / paper_id


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` through a file beside it and a rename: a kill leaves the old
    file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def save_artifact(settings: Settings, paper_id: str, name: str, record: BaseModel) -> str:
    path = paper_dir(settings, paper_id) / name
    write_atomically(path, record.model_dump_json(indent=1))
    return str(path.relative_to(settings.resolved_data_dir()))


def load_artifact(settings: Settings, run: StageRun, cls: type[M]) -> M:
    path = settings.resolved_data_dir() / run.artifact
    return cls.model_validate_json(path.read_text())


def stage_output(store: Store, settings: Settings, paper_id: str, stage: Stage, cls: type[M]) -> M:
    run = store.current_runs(paper_id).get(stage.value)
    if run is None or not run.artifact:
        raise StageBlocked(f"paper {paper_id}: stage {stage.value} has no output yet")
    return load_artifact(settings, run, cls)


def ingest_of(store: Store, settings: Settings, paper_id: str) -> IngestResult:
    """The paper's current ingest output: its local PDF, its checkout and the pinned commit."""
    return stage_output(store, settings, paper_id, Stage.ingest, IngestResult)


# ------------------------------------------------------------------ common


def _checkpoint_status(settings: Settings, clean: bool) -> str:
    return TaskStatus.approved if settings.auto_approve and clean else TaskStatus.awaiting_review


def _run_stage(
    store: Store,
    settings: Settings,
    paper_id: str,
    stage: Stage,
    inputs_hash: str,
    work: Callable[[], tuple[StageResult, int]],
    *,
    model: str = "",
    prompt_version: str = "",
) -> StageRun:
    """Shared skeleton: cache lookup, lease, run, artifact, checkpoint, paper status.

    The run is claimed in the store first (LeaseHeld when another live process runs this
    stage) and its heartbeat renewed while the work goes on. An exception ends the run as
    failed with the reason; an interrupt (Ctrl-C, SIGTERM) marks it interrupted, so the next
    command reruns the stage. A kill leaves it running until `recover_interrupted` sees its
    process gone."""
    cached = store.cached_run(paper_id, stage.value, inputs_hash)
    if cached is not None and cached.current:
        return cached
    _pause_if_asked(settings, f"before-{stage.value}", paper_id)
    run = store.start_run(
        paper_id,
        stage.value,
        inputs_hash=inputs_hash,
        model=model,
        prompt_version=prompt_version,
        pipeline_version=PIPELINE_VERSION,
    )
    assert run.id is not None
    _OWN_RUNS[run.id] = store
    try:
        # A stage running beside this one may have failed the paper already: keep that.
        if store.require_paper(paper_id).status != PaperStatus.failed:
            store.set_paper_status(paper_id, PaperStatus.running, stage.value)
        with _heartbeat(store, run.id):
            _pause_if_asked(settings, stage.value, paper_id)
            result, items = work()
    except Exception as exc:
        reason = f"internal error in {stage.value}: {type(exc).__name__}: {exc}"
        failed = StageResult(
            status=Status.failed,
            errors=[StageError(stage=stage.value, category="internal", message=reason)],
        )
        with suppress(LeaseLost):  # taken over meanwhile: the new owner's run counts
            store.finish_run(run.id, failed, status=RunStatus.failed)
            store.set_paper_status(paper_id, PaperStatus.failed, stage.value, reason)
        raise
    except BaseException:  # KeyboardInterrupt, SystemExit: stopped, not broken
        store.interrupt_run(run.id, "stopped by a signal while it ran")
        raise
    finally:
        _OWN_RUNS.pop(run.id, None)
    artifact = save_artifact(settings, paper_id, f"{stage.value}-{inputs_hash[:12]}.json", result)
    if result.status == Status.failed:
        status = RunStatus.failed
    elif items:  # task stages: the run is approved when its last item is
        status = (
            RunStatus.approved
            if items_all_decided(store, paper_id, stage)
            else RunStatus.awaiting_review
        )
    else:
        status = RunStatus(_checkpoint_status(settings, result.status == Status.succeeded))
    finished = store.finish_run(
        run.id,
        result,
        status=status,
        artifact=artifact,
        items=items,
        cost_usd=result.usage.cost_usd,
        prompt_tokens=result.usage.prompt_tokens,
        completion_tokens=result.usage.completion_tokens,
    )
    if status == RunStatus.failed:
        reason = "; ".join(e.message for e in result.errors if e.severity == Severity.error)
        store.set_paper_status(paper_id, PaperStatus.failed, stage.value, reason or "stage failed")
    else:
        from expcurate.curation.review import refresh_paper_status

        refresh_paper_status(store, paper_id)
    return finished


# The runs this process is working on right now, with their store: what a signal handler
# marks interrupted before the process ends.
_OWN_RUNS: dict[int, Store] = {}


def interrupt_own_runs(reason: str) -> int:
    """Mark every run this process is working on interrupted (best effort: the next command's
    recovery sees the process gone anyway); returns how many were marked."""
    marked = 0
    for run_id, store in list(_OWN_RUNS.items()):
        try:
            marked += store.interrupt_run(run_id, reason)
        except Exception:  # the database is busy or gone: recovery will do it
            continue
    return marked


@contextmanager
def _heartbeat(store: Store, run_id: int) -> Iterator[None]:
    """Renew the run's lease every few seconds while the block runs."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(HEARTBEAT_S):
            try:
                if not store.heartbeat(run_id):
                    return
            except Exception:  # a busy database: the next beat tries again
                continue

    thread = threading.Thread(target=beat, name=f"heartbeat-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def _pause_if_asked(settings: Settings, point: str, paper_id: str) -> None:
    """Fault injection (`pause_at`): say so in a marker file, then hold until killed."""
    if settings.pause_at != point:
        return
    marker = paper_dir(settings, paper_id) / f"paused-{point}"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(str(time.time()))
    while True:
        time.sleep(0.2)


def recover_interrupted(store: Store, settings: Settings, paper_id: str | None = None) -> list[str]:
    """Stage runs left `running` by a process that is gone (killed, crashed, its machine
    lost) are marked interrupted and taken off their checkpoints, so the next `advance`
    reruns them from their inputs, reusing every stage that finished. Returns one line per
    recovered run. A run whose owner is alive is left alone."""
    from expcurate.curation.review import refresh_paper_status

    recovered = []
    for run in store.running_runs(paper_id):
        why = owner_gone(run, settings.lease_timeout_s)
        if why is None or run.id is None or not store.interrupt_run(run.id, why):
            continue
        recovered.append(f"{run.paper_id}: the {run.stage} run was interrupted ({why}); it reruns")
        refresh_paper_status(store, run.paper_id)  # the paper's status follows from its runs
    return recovered


def items_all_decided(store: Store, paper_id: str, stage: Stage) -> bool:
    return not store.tasks(paper_id, stage=stage.value, status=TaskStatus.awaiting_review)


# ------------------------------------------------------------------ stages


def run_ingest(store: Store, settings: Settings, paper_id: str) -> StageRun:
    from extractors.ingest import ingest

    paper = store.require_paper(paper_id)
    inputs = digest(
        paper.pdf_source, paper.repo_source, paper.requested_commit, _pdf_stamp(settings, paper)
    )

    def work() -> tuple[StageResult, int]:
        result = ingest(
            paper_id,
            paper.pdf_source,
            paper.repo_source,
            commit=paper.requested_commit or None,
            artifact_dir=paper_dir(settings, paper_id),
            clones_dir=settings.clones_dir,
        )
        store.upsert_paper(paper_id, pdf_sha256=result.pdf_sha256, commit=result.commit)
        return result, 0

    return _run_stage(store, settings, paper_id, Stage.ingest, inputs, work)


def _pdf_stamp(settings: Settings, paper: Paper) -> str:
    """A cheap fingerprint of a local PDF so a changed file re-runs ingest. A PDF given by
    URL is not downloaded for this: re-extraction downloads it, and when its bytes changed
    records their hash (`PDF_SEEN`), which this reads."""
    if paper.pdf_source.startswith(("http://", "https://")):
        seen = paper_dir(settings, paper.id) / PDF_SEEN
        return seen.read_text().strip() if seen.is_file() else ""
    path = Path(paper.pdf_source)
    if not path.is_file():
        return ""
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


PDF_SEEN = "pdf-url-sha256.txt"  # the hash of the last download of a URL PDF that changed


def run_parse(store: Store, settings: Settings, paper_id: str) -> StageRun:
    from extractors.paper import PaperLoadError, parse_pdf_isolated

    ingest = ingest_of(store, settings, paper_id)
    inputs = digest(
        ingest.pdf_sha256,
        PARSER_VERSION,
        settings.max_pdf_pages,
        settings.parse_timeout_s,  # a parse cut short by a limit reruns when it is raised
        settings.parse_max_memory_mb,
    )

    def work() -> tuple[StageResult, int]:
        try:
            parsed = parse_pdf_isolated(
                Path(ingest.pdf_path),
                paper_dir(settings, paper_id) / "images",
                max_pages=settings.max_pdf_pages,
                timeout_s=settings.parse_timeout_s,
                max_memory_mb=settings.parse_max_memory_mb,
            )
        except PaperLoadError as exc:
            parsed = ParsedPaper(status=Status.failed)
            parsed.add_error("parse", "pdf", str(exc))
            parsed.status = Status.failed
        if parsed.title:
            paper = store.require_paper(paper_id)
            if not paper.title:
                store.upsert_paper(paper_id, title=parsed.title)
        return parsed, 0

    return _run_stage(store, settings, paper_id, Stage.parse, inputs, work)


def run_mine(store: Store, settings: Settings, paper_id: str) -> StageRun:
    from extractors.repo import mine_repo

    ingest = ingest_of(store, settings, paper_id)
    inputs = digest(ingest.repo_url, ingest.commit, MINER_VERSION, settings.max_file_bytes)

    def work() -> tuple[StageResult, int]:
        index = mine_repo(
            Path(ingest.repo_path),
            ingest.commit,
            max_file_bytes=settings.max_file_bytes,
            max_files=settings.max_repo_files,
        )
        return index, 0

    return _run_stage(store, settings, paper_id, Stage.mine, inputs, work)


def run_tasks(store: Store, settings: Settings, paper_id: str) -> StageRun:
    from extractors.tasks import draft_tasks, prompt_version
    from extractors.validate import validate_drafts

    parse_run = store.current_runs(paper_id)[Stage.parse.value]
    parsed = load_artifact(settings, parse_run, ParsedPaper)
    model = settings.stage_model("tasks")
    version = prompt_version(model)
    inputs = digest(parse_run.inputs_hash, model, version)

    def work() -> tuple[StageResult, int]:
        drafts: DraftSet = draft_tasks(
            parsed, model, settings=settings, images_root=paper_dir(settings, paper_id)
        )
        all_fields = [TaskFields.from_draft(d) for d in drafts.tasks]
        all_flags = validate_drafts(all_fields, parsed)
        for position, (fields, flags) in enumerate(zip(all_fields, all_flags, strict=True)):
            _put_checkpoint(store, settings, paper_id, position, fields, Stage.tasks, flags, model)
        return drafts, len(drafts.tasks)

    return _run_stage(
        store,
        settings,
        paper_id,
        Stage.tasks,
        inputs,
        work,
        model=model,
        prompt_version=version,
    )


def _checkpoint_task(
    store: Store,
    settings: Settings,
    task_id: int,
    fields: TaskFields,
    stage: Stage,
    flags: list[Flag],
    model: str,
) -> None:
    """Record a task's machine output at `stage`, awaiting review unless clean and auto."""
    task = store.require_task(task_id)
    _put_checkpoint(store, settings, task.paper_id, task.position, fields, stage, flags, model)


def _put_checkpoint(
    store: Store,
    settings: Settings,
    paper_id: str,
    position: int,
    fields: TaskFields,
    stage: Stage,
    flags: list[Flag],
    model: str,
) -> None:
    """The task at `position` of the paper, as `model` wrote it at `stage`, with its flags."""
    clean = not any(f.severity == Severity.error for f in flags)
    store.put_machine_task(
        paper_id,
        fields,
        stage=stage.value,
        author=f"machine:{model}",
        position=position,
        status=_checkpoint_status(settings, clean),
        flags=flags,
    )


def _approved_at(store: Store, paper_id: str, stage: Stage) -> list[tuple[int, TaskFields]]:
    out = []
    for task in store.tasks(paper_id, stage=stage.value, status=TaskStatus.approved):
        assert task.id is not None
        out.append((task.id, store.fields(task)))
    return out


def run_setup(
    store: Store,
    settings: Settings,
    paper_id: str,
    tasks: list[tuple[int, TaskFields]] | None = None,
) -> StageRun:
    """The setup stage for the tasks approved at the tasks checkpoint (or for `tasks`: the
    live tasks a re-extraction sends through a new setup model)."""
    from extractors.agent import prompt_version, recover_setups
    from extractors.validate import as_tree, validate_setup
    from extractors.validate.repo_checks import check_command_flags, check_model_fallback

    runs = store.current_runs(paper_id)
    ingest = ingest_of(store, settings, paper_id)
    index = load_artifact(settings, runs[Stage.mine.value], RepoIndex)
    approved = _approved_at(store, paper_id, Stage.tasks) if tasks is None else tasks
    model = settings.stage_model("setup")
    version = prompt_version(model)
    inputs = digest(
        runs[Stage.mine.value].inputs_hash,
        model,
        version,
        settings.agent_max_steps,
        [f.draft().model_dump(mode="json") for _, f in approved],
    )
    root = Path(ingest.repo_path)

    def work() -> tuple[StageResult, int]:
        tree = as_tree(root)  # one repository view for every task: file reads are cached

        def record(i: int, setup: Setup) -> None:
            task_id, fields = approved[i]
            new = fields.with_setup(setup)
            flags = validate_setup(new, tree)
            flags += check_model_fallback(setup, model) + check_command_flags(setup)
            _checkpoint_task(store, settings, task_id, new, Stage.setup, flags, model)

        drafts = [f.draft() for _, f in approved]
        result = recover_setups(drafts, index, root, settings, model=model, on_setup=record)
        return result, len(result.setups)

    return _run_stage(
        store,
        settings,
        paper_id,
        Stage.setup,
        inputs,
        work,
        model=model,
        prompt_version=version,
    )


# ------------------------------------------------------------------ masking (package stage)

NOTHING_TO_MASK = "nothing to mask"


class TaskMask(BaseModel):
    """One task's masking as built at the package stage: the patches, or why there are none.

    `commit` and `paths` are what it was built from; export reuses the entry only while the
    task still asks for exactly these paths at this commit, and rebuilds it otherwise.
    """

    commit: str  # the pinned commit asked for
    paths: list[str] = Field(default_factory=list)  # repo-relative masked_source + mask_also
    built: bool = False  # patches were made (possibly empty: nothing matched)
    reason: str = ""  # why not, when not built ("nothing to mask" is not a failure)
    resolved: str = ""  # the commit's full sha, as the patches name it
    files: list[str] = Field(default_factory=list)  # masked files, folders expanded
    mask: str = ""  # mask.patch text (surrogate-escaped where the files are not UTF-8)
    restore: str = ""  # restore.patch text

    @property
    def failed(self) -> bool:
        return not self.built and self.reason != NOTHING_TO_MASK


class PackageMasks(BaseModel):
    """Every task's masking from one package run, by task key."""

    tasks: dict[str, TaskMask] = Field(default_factory=dict)


def masked_paths(fields: TaskFields) -> list[str]:
    """The repo-relative paths a task hides from the agent: masked_source and mask_also."""
    from expcurate.records.refs import repo_path

    return sorted({repo_path(p) for p in [*fields.masked_source, *fields.mask_also]})


def mask_task(root: Path | None, commit: str, paths: list[str]) -> TaskMask:
    """The mask and restore patches of `paths` at `commit` in `root`, or why there are none."""
    from extractors.package import MaskError, mask_patches

    entry = TaskMask(commit=commit, paths=paths)
    if not paths:
        entry.reason = NOTHING_TO_MASK
    elif root is None:
        entry.reason = "the repository is not checked out here; patches not built"
    elif not commit:
        entry.reason = "no pinned commit; patches not built"
    else:
        try:
            patches = mask_patches(root, commit, paths)
        except MaskError as exc:
            entry.reason = f"patches not built: {exc}"
        else:
            entry.built, entry.resolved, entry.files = True, patches.commit, patches.files
            entry.mask, entry.restore = patches.mask, patches.restore
    return entry


def masks_artifact(settings: Settings, paper_id: str, inputs_hash: str) -> Path:
    """Where the package run with this inputs hash keeps its tasks' masking (`PackageMasks`)."""
    return paper_dir(settings, paper_id) / f"masks-{inputs_hash[:12]}.json"


def _save_masks(settings: Settings, paper_id: str, inputs_hash: str, masks: PackageMasks) -> None:
    # json, not model_dump_json: a patch of a file that is not UTF-8 holds surrogate escapes,
    # which pydantic's JSON writer refuses; json writes them as \udcXX and reads them back.
    path = masks_artifact(settings, paper_id, inputs_hash)
    write_atomically(path, json.dumps(masks.model_dump(mode="python"), indent=1))


def package_masks(store: Store, settings: Settings, paper_id: str) -> PackageMasks | None:
    """The masking the paper's current package run built, if it ran here (not imported)."""
    run = store.current_runs(paper_id).get(Stage.package.value)
    if run is None:
        return None
    path = masks_artifact(settings, paper_id, run.inputs_hash)
    if not path.is_file():
        return None
    return PackageMasks.model_validate(json.loads(path.read_text()))


def masking_flags(entry: TaskMask) -> list[Flag]:
    from extractors.validate.catalog import flag

    if not entry.failed:
        return []
    message = f"the files to mask ({', '.join(entry.paths)}) cannot be masked: {entry.reason}"
    return [flag("masking", Severity.error, message, entry.paths)]


def run_package(store: Store, settings: Settings, paper_id: str) -> StageRun:
    from extractors.validate import as_tree, validate_task

    runs = store.current_runs(paper_id)
    ingest = ingest_of(store, settings, paper_id)
    parsed = load_artifact(settings, runs[Stage.parse.value], ParsedPaper)
    approved = _approved_at(store, paper_id, Stage.setup)
    inputs = digest(
        runs[Stage.setup.value].inputs_hash,
        [f.model_dump(mode="json", exclude={"trace"}) for _, f in approved],
    )
    root = Path(ingest.repo_path)
    # The commit export names (see publish.paper_checkout), so it can reuse these patches.
    commit = ingest.commit or store.require_paper(paper_id).commit
    checkout = root if ingest.repo_path and root.is_dir() else None

    def work() -> tuple[StageResult, int]:
        from expcurate.records import StageResult as Result

        result = Result()
        siblings = [f for _, f in approved]
        tree = as_tree(root)  # built once: the leakage index reads the whole repository
        masks = PackageMasks()
        for task_id, fields in approved:
            flags = validate_task(fields, parsed, tree, siblings)
            entry = mask_task(checkout, commit, masked_paths(fields))
            masks.tasks[fields.key] = entry
            flags += masking_flags(entry)
            _checkpoint_task(store, settings, task_id, fields, Stage.package, flags, settings.model)
        _save_masks(settings, paper_id, inputs, masks)
        return result, len(approved)

    return _run_stage(store, settings, paper_id, Stage.package, inputs, work)


RUNNERS: dict[Stage, Callable[[Store, Settings, str], StageRun]] = {
    Stage.ingest: run_ingest,
    Stage.parse: run_parse,
    Stage.mine: run_mine,
    Stage.tasks: run_tasks,
    Stage.setup: run_setup,
    Stage.package: run_package,
}
