"""Helpers shared by the review app's tests (imported by module name, as pytest puts this
folder on the path)."""

from __future__ import annotations

import shutil
from pathlib import Path

from expcurate.records import StageResult, TaskFields
from expcurate.store import Store

ROOT = Path(__file__).resolve().parents[2]
PAPER = "90001"
PASSWORD = "correct horse battery"


def copy_data(template: Path, dest: Path) -> Path:
    """A private copy of a template data dir (the repository snapshot is shared, read-only)."""
    shutil.copytree(template, dest, ignore=shutil.ignore_patterns("clones"))
    return dest


def finish_run(store: Store, paper: str, stage: str, status: str = "approved") -> int:
    run = store.start_run(paper, stage)
    assert run.id is not None
    store.finish_run(run.id, StageResult(), status=status)
    return run.id


def simple_task(key: str, **changes: object) -> TaskFields:
    data: dict[str, object] = {
        "key": key,
        "question": f"Does method {key} beat the baseline?",
        "method": "Train both and compare.",
        "expected_outcome": "It does, by 1.5 points.",
    }
    data.update(changes)
    return TaskFields.model_validate(data)
