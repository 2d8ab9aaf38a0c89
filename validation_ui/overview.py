"""The paper overview and release downloads: plain reads over the store and data dir."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from expcurate.records import RETRYABLE, STAGE_ORDER, PaperStatus, RunStatus, TaskStatus
from expcurate.settings import Settings
from expcurate.store import Store, StoreError


@dataclass
class StageRow:
    stage: str
    status: str = "not started"
    result_status: str = ""
    items: int = 0
    open_items: int = 0
    cost_usd: float = 0.0
    tokens: int = 0
    duration_s: float = 0.0
    started_at: datetime | None = None
    finished_at: datetime | None = None
    model: str = ""
    run_id: int | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    retryable: bool = False


def stage_rows(store: Store, paper_id: str) -> list[StageRow]:
    """One row per stage with the current run's status, cost, timing and errors."""
    runs = store.current_runs(paper_id)
    paper = store.require_paper(paper_id)
    tasks = store.tasks(paper_id)
    rows = []
    for stage in STAGE_ORDER:
        run = runs.get(stage.value)
        row = StageRow(stage.value)
        row.open_items = sum(
            t.stage == stage.value and t.status == TaskStatus.awaiting_review for t in tasks
        )
        if run is not None:
            row.status, row.result_status, row.items = run.status, run.result_status, run.items
            row.cost_usd, row.duration_s, row.model = run.cost_usd, run.duration_s, run.model
            row.tokens = run.prompt_tokens + run.completion_tokens
            row.started_at, row.finished_at, row.run_id = run.started_at, run.finished_at, run.id
            row.errors = list(run.errors)
            row.retryable = run.status in RETRYABLE
        elif paper.status == PaperStatus.failed and paper.stage == stage.value:
            row.status = RunStatus.failed
            row.errors = [{"stage": stage.value, "category": "paper", "message": paper.error}]
            row.retryable = True
        rows.append(row)
    return rows


# ------------------------------------------------------------------ releases


def release_dir(settings: Settings, release_path: str) -> Path:
    """The folder of a release, refusing anything outside the published folder."""
    root = (settings.resolved_data_dir() / release_path).resolve()
    if not root.is_relative_to(settings.published_dir.resolve()) or not root.is_dir():
        raise StoreError(f"release folder {release_path} is missing from {settings.published_dir}")
    return root


def release_zip(settings: Settings, release_path: str) -> bytes:
    """A release folder as a zip (sorted, fixed timestamps: the same release, the same bytes)."""
    root = release_dir(settings, release_path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            name = (Path(root.name) / path.relative_to(root)).as_posix()
            info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()
