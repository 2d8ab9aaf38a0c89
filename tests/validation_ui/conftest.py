"""Fixtures for the review app: real stores made by the real pipeline, copied per test.

The first phase (ingest, parse, mine) of the sample paper runs once per session into a
template data dir (about two seconds, no Prefect); each test copies the database and
artifacts, so it can change them freely. The copies still point at the template's PDF and
repository snapshot, which no test modifies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ui_helpers import PAPER, ROOT, copy_data

from expcurate.curation import pipeline, review
from expcurate.curation.services import open_store, register_paper
from expcurate.records import FIRST_PHASE, PaperListEntry
from expcurate.settings import Settings, override_settings
from expcurate.store import Store

SAMPLE = ROOT / "data" / "sample"


def _checkpoint(store: Store) -> None:
    store.checkpoint()


def _build(data_dir: Path, *, draft_tasks: bool) -> Path:
    with override_settings(data_dir=data_dir, db_url="", model="heuristic") as settings:
        store = open_store(settings)
        paper = PaperListEntry(id=PAPER, pdf_url=str(SAMPLE / "paper.pdf"),
                               code_url=str(SAMPLE / "repo"), conference="neurips2099")  # fmt: skip
        register_paper(store, paper)
        for run in (pipeline.run_ingest, pipeline.run_parse, pipeline.run_mine):
            run(store, settings, PAPER)
        if draft_tasks:
            for stage in FIRST_PHASE:
                review.approve_stage(store, PAPER, stage, "fixture")
            pipeline.run_tasks(store, settings, PAPER)
        _checkpoint(store)
    return data_dir


@pytest.fixture(scope="session")
def phase1_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sample paper with its ingest, parse and mine checkpoints awaiting review."""
    return _build(tmp_path_factory.mktemp("phase1") / "data", draft_tasks=False)


@pytest.fixture(scope="session")
def drafted_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sample paper with the first phase approved and nine drafted tasks awaiting review."""
    return _build(tmp_path_factory.mktemp("drafted") / "data", draft_tasks=True)


@pytest.fixture
def make_env(tmp_path: Path) -> Iterator[Callable[[Path], tuple[Settings, Store]]]:
    """Activate settings on a copy of a template; returns (settings, store)."""
    stack: list[object] = []

    def make(template: Path) -> tuple[Settings, Store]:
        data = copy_data(template, tmp_path / f"data{len(stack)}")
        ctx = override_settings(data_dir=data, db_url="", model="heuristic")
        settings = ctx.__enter__()
        stack.append(ctx)
        return settings, open_store(settings)

    yield make
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)  # type: ignore[attr-defined]


@pytest.fixture
def phase1(make_env: Callable[[Path], tuple[Settings, Store]], phase1_template: Path) -> Store:
    return make_env(phase1_template)[1]


@pytest.fixture
def drafted(make_env: Callable[[Path], tuple[Settings, Store]], drafted_template: Path) -> Store:
    return make_env(drafted_template)[1]
