"""Masking is built at the package stage, where a reviewer sees it, and export reuses it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.curation import pipeline, review
from expcurate.curation.pipeline import (
    mask_task,
    masked_paths,
    masks_artifact,
    package_masks,
)
from expcurate.curation.services import open_store, register_paper
from expcurate.records import IngestResult, PaperListEntry, Stage, TaskStatus
from expcurate.settings import Settings, override_settings
from expcurate.store import Store

runner = CliRunner()
MISSING = "gatemix/not_in_the_repo.py"


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # rich wraps long lines at the terminal width


def _release_rows(data: Path, release: str) -> list[dict[str, Any]]:
    lines = (data / "published" / release / "tasks.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _checkout(store: Store, settings: Settings, paper_id: str) -> Path:
    run = store.current_runs(paper_id)[Stage.ingest.value]
    return Path(pipeline.load_artifact(settings, run, IngestResult).repo_path)


@pytest.mark.prefect
def test_export_reuses_the_package_stage_patches_byte_for_byte(
    tmp_path: Path, sample_pdf: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """The package stage stores every task's mask and restore patches; export publishes those
    exact bytes without the checkout, and the same bytes it builds itself without them."""
    data = tmp_path / "data"
    _cli("extract", "--pdf", str(sample_pdf), "--repo", str(sample_repo), "--paper-id", "p1",
         "--auto-approve", "--data-dir", str(data))  # fmt: skip
    with override_settings(data_dir=data, db_url="", model="heuristic") as settings:
        store = open_store(settings)
        run = store.current_runs("p1")[Stage.package.value]
        assert masks_artifact(settings, "p1", run.inputs_hash).is_file()
        built = package_masks(store, settings, "p1")
        checkout = _checkout(store, settings, "p1")
    assert built is not None
    approved = store.tasks("p1", stage=Stage.package.value, status=TaskStatus.approved)
    assert approved and {t.key for t in approved} <= set(built.tasks)
    assert any(e.built and e.files for e in built.tasks.values()), "nothing was masked"
    assert not any(f.check == "masking" for t in approved for f in t.flag_list())

    # With the checkout out of reach export could build nothing: what it publishes is stored.
    hidden = checkout.with_name(checkout.name + "-away")
    checkout.rename(hidden)
    try:
        _cli("export", "--release", "stored", "--data-dir", str(data))
    finally:
        hidden.rename(checkout)
    published = 0
    for row in _release_rows(data, "stored"):
        masking = row["masking"]
        entry = built.tasks[row["provenance"]["task_key"]]
        if not entry.files:
            assert masking["patches"] is False and masking["note"] == "nothing to mask"
            continue
        assert masking["files"] == entry.files and masking["commit"] == entry.resolved
        folder = data / "published" / "stored"
        for kind, text in (("mask", entry.mask), ("restore", entry.restore)):
            on_disk = (folder / masking[f"{kind}_patch"]).read_bytes()
            assert on_disk == text.encode("utf-8", "surrogateescape")
        published += 1
    assert published >= 1

    # Without the stored patches export builds them as it always did: the same release bytes.
    for task in approved:
        fields = store.fields(task)
        fresh = mask_task(checkout, built.tasks[task.key].commit, masked_paths(fields))
        assert fresh == built.tasks[task.key]
    masks_artifact(settings, "p1", run.inputs_hash).unlink()
    _cli("export", "--release", "built", "--data-dir", str(data))
    manifests = [
        json.loads((data / "published" / name / "manifest.json").read_text())
        for name in ("stored", "built")
    ]
    assert manifests[0]["files"] == manifests[1]["files"]


@pytest.fixture
def auto(tmp_path: Path) -> Iterator[Settings]:
    with override_settings(
        data_dir=tmp_path / "data", db_url="", model="heuristic", auto_approve=True
    ) as settings:
        yield settings


def test_a_task_that_cannot_be_masked_is_flagged_at_the_package_checkpoint(
    auto: Settings, sample_pdf: Path, sample_repo: Path
) -> None:
    """A masked file missing at the pinned commit gives the task a `masking` error flag at the
    package checkpoint, so auto-approval stops there; once a reviewer accepts it, the export
    summary says the task went out unmasked and why."""
    store = open_store(auto)
    register_paper(
        store,
        PaperListEntry(
            id="p1", pdf_url=str(sample_pdf), code_url=str(sample_repo), conference="c1"
        ),
    )
    for run in (pipeline.run_ingest, pipeline.run_parse, pipeline.run_mine, pipeline.run_tasks,
                pipeline.run_setup):  # fmt: skip
        run(store, auto, "p1")
    ready = [t for t in store.tasks("p1", stage=Stage.setup.value, status=TaskStatus.approved)
             if store.fields(t).masked_source]  # fmt: skip
    assert len(ready) >= 2, "the sample should give several maskable tasks"
    broken = ready[0]
    assert broken.id is not None
    fields = store.fields(broken)
    edited = fields.model_copy(update={"masked_source": [*fields.masked_source, MISSING]})
    store.edit_task(broken.id, edited, reviewer="tester", expected_head=broken.head)

    pipeline.run_package(store, auto, "p1")

    task = store.require_task(broken.id)
    assert (task.stage, task.status) == (Stage.package.value, TaskStatus.awaiting_review)
    masking = [f for f in review.error_flags(task) if f.check == "masking"]
    assert len(masking) == 1 and MISSING in masking[0].paths
    assert MISSING in masking[0].message and "not in the repository" in masking[0].message
    others = [store.require_task(t.id) for t in ready[1:] if t.id is not None]
    assert all(not any(f.check == "masking" for f in t.flag_list()) for t in others)
    built = package_masks(store, auto, "p1")
    assert built is not None
    assert built.tasks[task.key].failed and MISSING in built.tasks[task.key].reason

    review.override_errors(store, broken.id, "tester", "the file is generated at run time")
    review.decide_task(store, broken.id, "approve", "tester")
    out = _cli("export", "--release", "r1", "--data-dir", str(auto.resolved_data_dir()))
    assert "1 task(s) published without masking" in out
    assert "first reason: patches not built: masked paths not in the repository" in out
    assert MISSING in out
    rows = _release_rows(auto.resolved_data_dir(), "r1")
    (row,) = [r for r in rows if r["provenance"]["task_key"] == task.key]
    assert row["masking"] == {"patches": False, "note": built.tasks[task.key].reason}
