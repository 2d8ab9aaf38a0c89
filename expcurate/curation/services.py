"""Entry points shared by the CLI, the flows and the review app.

Opening the store, admitting and registering papers and summarising their state live here so
that no caller reaches into tables or flow internals.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field

from expcurate.records import PaperListEntry, PaperStatus, RunStatus, Stage
from expcurate.settings import Settings
from expcurate.store import Store

_stores: dict[str, Store] = {}

PAPER_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def open_store(settings: Settings) -> Store:
    """One store (engine) per database URL per process."""
    url = settings.database_url()
    store = _stores.get(url)
    if store is None:
        store = _stores[url] = Store(url)
    return store


def derive_paper_id(pdf: str) -> str:
    """A readable id from the PDF name when the curator gives none."""
    stem = Path(pdf.split("?", 1)[0].rstrip("/")).stem or "paper"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-._") or "paper"
    return slug[:64]


def check_paper_id(paper_id: str) -> str:
    if not PAPER_ID_RE.match(paper_id):
        raise ValueError(
            f"paper id {paper_id!r} must be letters, digits, '.', '_' or '-' (at most 128)"
        )
    return paper_id


def register_paper(
    store: Store, paper: PaperListEntry, model: str = "", auto_approve: bool = False
) -> None:
    """Create or update a paper before its first stage; a failed paper is reset to retry.
    `auto_approve` is remembered: a later `advance` of the paper resumes with it."""
    check_paper_id(paper.id)
    existing = store.get_paper(paper.id)
    fields = {**listed_columns(paper), "model": model, "auto_approve": auto_approve}
    if existing is None or existing.status == PaperStatus.failed:
        fields.update(status=PaperStatus.pending, error="", stage="")
        # Curating a failed paper again retries what failed; the failed runs stay as history.
        for run in store.current_runs(paper.id).values():
            if run.status in (RunStatus.failed, RunStatus.rejected) and run.id is not None:
                store.retire_run(run.id)
    store.upsert_paper(paper.id, **fields)


def listed_columns(paper: PaperListEntry) -> dict[str, object]:
    """What a paper-list line sets on the paper's row (an empty title or conference leaves
    the stored one)."""
    columns: dict[str, object] = {
        "pdf_source": paper.pdf_url,
        "repo_source": paper.code_url,
        "requested_commit": paper.commit,
    }
    if paper.title:
        columns["title"] = paper.title
    if paper.conference:
        columns["conference"] = paper.conference
    return columns


def fail_paper(store: Store, paper_id: str, stage: str, reason: str) -> None:
    store.set_paper_status(paper_id, PaperStatus.failed, stage, reason)


def _input_problem(pdf: str, repo: str) -> str | None:
    """Why local input cannot be curated, in one line that tells the fix, or None.

    Only what can be told without fetching anything: remote PDFs and repositories are
    checked when ingest resolves them."""
    from extractors.ingest import is_url, pdf_problem

    if not is_url(pdf):
        path = Path(pdf)
        if not path.is_file():
            return f"PDF not found: {pdf}; pass an existing file or an http(s) URL"
        problem = pdf_problem(path, pdf)
        if problem:
            return problem
    looks_remote = "://" in repo or repo.startswith("git@")
    if not looks_remote and not Path(repo).is_dir():
        return f"repository not found: {repo}; pass a local folder or a git URL"
    return None


def admit_paper(
    store: Store, paper: PaperListEntry, model: str = "", auto_approve: bool = False
) -> str | None:
    """Register a paper for curation, or say in one line why it cannot be curated.

    The one gate before the first stage, whoever starts it (the CLI, a batch, a deployment
    run): a bad id is refused without a row (it names folders on disk); a missing or
    non-PDF file or a missing repository folder fails the paper at ingest with the reason."""
    try:
        check_paper_id(paper.id)
    except ValueError as exc:
        return str(exc)
    register_paper(store, paper, model, auto_approve)
    problem = _input_problem(paper.pdf_url, paper.code_url)
    if problem:
        fail_paper(store, paper.id, Stage.ingest.value, problem)
    return problem


class PaperSummary(BaseModel):
    """Where a paper stands: what the flows return and the CLI prints."""

    paper_id: str
    status: PaperStatus
    stage: str
    error: str = ""
    stages: dict[str, RunStatus] = Field(default_factory=dict)  # stage -> its run's status
    tasks: dict[str, int] = Field(default_factory=dict)  # "stage:status" -> count
    # What this call found and did besides running stages: recovered runs, a held lease.
    notes: list[str] = Field(default_factory=list)


def refused(paper_id: str, reason: str) -> PaperSummary:
    """The summary of a paper refused before it got a row in the store (a bad id)."""
    return PaperSummary(
        paper_id=paper_id, status=PaperStatus.failed, stage=Stage.ingest.value, error=reason
    )


def summarize(store: Store, paper_id: str) -> PaperSummary:
    paper = store.require_paper(paper_id)
    runs = store.current_runs(paper_id)
    counts: dict[str, int] = {}
    for task in store.tasks(paper_id):
        key = f"{task.stage}:{task.status}"
        counts[key] = counts.get(key, 0) + 1
    return PaperSummary(
        paper_id=paper_id,
        status=PaperStatus(paper.status),
        stage=paper.stage,
        error=paper.error,
        stages={s.value: RunStatus(runs[s.value].status) for s in Stage if s.value in runs},
        tasks=counts,
    )
