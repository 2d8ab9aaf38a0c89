"""The whole pipeline under Prefect's test harness, on our own sample paper."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli, sample_paper_list, tasks_in
from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.records import REF_RE, STEP_RE, ExpBenchFile, PaperListEntry
from expcurate.store import Store

pytestmark = pytest.mark.prefect
runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
SAMPLE_LIST = ROOT / "data" / "sample" / "sample.jsonl"


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _published(data: Path, release: str) -> tuple[Path, ExpBenchFile, dict[str, str]]:
    folder = data / "published" / release
    files = list((folder / "outputs" / "logs").glob("*/*/*_complete_final.json"))
    assert len(files) == 1, files
    entry = json.loads((folder / "papers.jsonl").read_text().splitlines()[0])
    return files[0], ExpBenchFile.model_validate_json(files[0].read_text()), entry


@pytest.mark.databases
def test_sample_paper_end_to_end(tmp_path: Path, prefect_harness: None, db_url: str) -> None:
    """Auto-approved run of the sample, on SQLite and on PostgreSQL: every EXP-Bench field
    filled, every reference valid, a second run adds nothing, and re-exporting gives the same
    bytes."""
    data = tmp_path / "data"
    on = ["--data-dir", str(data), *(["--db-url", db_url] if db_url else [])]
    _run("batch", str(SAMPLE_LIST), "--auto-approve", *on)
    store = Store(db_url or f"sqlite:///{data / 'expcurate.db'}")
    paper = store.papers()[0]
    assert paper.status == "ready", paper.error
    assert re.fullmatch(r"[0-9a-f]{40}", paper.commit)
    repo_root = next(p for p in (data / "clones").iterdir() if p.is_dir())

    _run("export", "--release", "r1", *on)
    path, published, entry = _published(data, "r1")
    assert path.parent.name == entry["id"] == paper.id
    assert {"id", "title", "pdf_url", "code_url"} <= set(entry)
    assert len(published.questions) >= 3
    for task in published.questions:
        assert task.question.endswith("?")
        assert task.method and task.expected_outcome and task.subsection_source
        dc = task.design_complexity
        assert dc.independent_variables and dc.dependent_variables
        if task.no_answer:
            continue
        assert task.source and task.masked_source and task.usage_instructions
        assert task.agent_instructions
        for masked in task.masked_source:
            assert (repo_root / masked).is_file()
            assert Path(masked).name not in task.agent_instructions
        assert task.requirements and task.requirements[-1].startswith("Final Step")
        for step in task.requirements:
            assert STEP_RE.match(step), step
            ref = REF_RE.search(step)
            if ref:
                lines = (repo_root / ref.group(1)).read_text().splitlines()
                start, end = int(ref.group(2)), int(ref.group(3) or ref.group(2))
                assert 1 <= start <= end <= len(lines), step
    assert published.main_takeaways

    tasks_before = len(store.tasks())
    revisions_before = sum(len(store.revisions(t.id)) for t in store.tasks() if t.id)
    _run("batch", str(SAMPLE_LIST), "--auto-approve", *on)
    assert len(store.tasks()) == tasks_before
    assert sum(len(store.revisions(t.id)) for t in store.tasks() if t.id) == revisions_before

    _run("export", "--release", "r2", *on)
    assert path.read_bytes() == _published(data, "r2")[0].read_bytes()
    m1 = json.loads((data / "published" / "r1" / "manifest.json").read_text())
    m2 = json.loads((data / "published" / "r2" / "manifest.json").read_text())
    assert m1 == m2


def test_checkpoints_walked_from_the_command_line(
    tmp_path: Path, sample_pdf: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """Without auto-approval each stage stops at its checkpoint; approving the last open item
    starts the next stage, a rejected task goes no further, and only approved tasks publish."""
    data = str(tmp_path / "data")
    out = _run(
        "extract",
        "--pdf",
        str(sample_pdf),
        "--repo",
        str(sample_repo),
        "--paper-id",
        "p1",
        "--conference",
        "testconf",
        "--data-dir",
        data,
    )
    assert "awaiting_review" in out
    store = Store(f"sqlite:///{Path(data) / 'expcurate.db'}")
    assert store.tasks("p1") == []
    for stage in ("ingest", "parse"):
        _run("approve", "--paper", "p1", "--stage", stage, "--data-dir", data)
        assert store.tasks("p1") == []
    out = _run("approve", "--paper", "p1", "--stage", "mine", "--data-dir", data)
    assert "started tasks" in out
    drafted = store.tasks("p1", stage="tasks", status="awaiting_review")
    assert len(drafted) >= 3
    rejected = drafted[0].id
    assert rejected is not None
    result = runner.invoke(
        app, ["reject", "--task", str(rejected), "--reason", "", "--data-dir", data]
    )
    assert result.exit_code == 2 and "reason" in result.output
    _run("reject", "--task", str(rejected), "--reason", "duplicates table 2", "--data-dir", data)
    out = _run("approve", "--paper", "p1", "--stage", "tasks", "--data-dir", data)
    assert "started setup" in out
    assert len(store.tasks("p1", stage="setup")) == len(drafted) - 1
    _run("approve", "--paper", "p1", "--stage", "setup", "--data-dir", data)
    _run("approve", "--paper", "p1", "--stage", "package", "--data-dir", data)
    assert store.require_paper("p1").status == "ready"
    reviews = store.reviews("p1")
    assert any(r.decision == "reject" and r.reason == "duplicates table 2" for r in reviews)
    _run("export", "--release", "walk", "--data-dir", data)
    _, published, entry = _published(Path(data), "walk")
    assert entry["conference"] == "testconf"
    assert len(published.questions) == len(drafted) - 1
    rejected_question = store.fields(store.require_task(rejected)).question
    assert rejected_question not in [q.question for q in published.questions]


def test_batch_goes_on_after_a_bad_paper(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """A corrupt PDF fails its own paper with the reason; the next paper is curated."""
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    good = ROOT / "data" / "sample" / "paper.pdf"
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "\n".join(
            json.dumps({"id": pid, "title": pid, "pdf_url": str(pdf), "code_url": str(sample_repo)})
            for pid, pdf in (("broken", corrupt), ("fine", good))
        )
        + "\n"
    )
    data = tmp_path / "data"
    out = _run("batch", str(papers), "--auto-approve", "--data-dir", str(data))
    assert "2 papers, 1 failed" in out
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    broken, fine = store.require_paper("broken"), store.require_paper("fine")
    assert (broken.status, broken.stage) == ("failed", "parse"), broken.error
    assert "PDF" in broken.error or "pdf" in broken.error
    assert fine.status == "ready"


def test_batch_records_a_bad_id_and_a_missing_pdf_and_goes_on(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """A batch entry with an id that is no file name, or a PDF that is not there, is failed
    with a one-line reason where the curate-paper flow admits papers; the good paper of the
    batch is curated and the batch exits 0 (2 only when every paper failed)."""
    good = ROOT / "data" / "sample" / "paper.pdf"
    entries = [
        ("../../escape", good),
        ("gone", tmp_path / "nowhere.pdf"),
        ("fine", good),
    ]
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "".join(
            json.dumps({"id": pid, "pdf_url": str(pdf), "code_url": str(sample_repo)}) + "\n"
            for pid, pdf in entries
        )
    )
    data = tmp_path / "data"
    out = _run("batch", str(papers), "--data-dir", str(data))
    assert "3 papers, 2 failed" in out and "Traceback" not in out
    assert "../../escape: failed (paper id '../../escape' must be letters" in out
    assert "gone: failed (PDF not found" in out
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    assert sorted(p.id for p in store.papers()) == ["fine", "gone"]  # no row for a bad id
    gone, fine = store.require_paper("gone"), store.require_paper("fine")
    assert (gone.status, gone.stage) == ("failed", "ingest")
    assert gone.error.startswith("PDF not found") and "\n" not in gone.error
    assert fine.status == "awaiting_review", fine.error
    assert not (data.parent / "escape").exists()


def test_papers_run_side_by_side_with_workers_and_end_as_one_by_one(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """`batch --workers 2`: each paper in its own process, a bad one failed with its reason,
    progress reported per paper, and the same tasks as the sequential batch of the same list."""
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    good = ROOT / "data" / "sample" / "paper.pdf"
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "".join(
            json.dumps({"id": pid, "title": pid, "pdf_url": str(pdf), "code_url": str(sample_repo)})
            + "\n"
            for pid, pdf in (("one", good), ("broken", corrupt), ("two", good))
        )
    )

    def tasks_of(data: Path) -> list[tuple[str, str, str]]:
        store = Store(f"sqlite:///{data / 'expcurate.db'}")
        return sorted((t.paper_id, t.key, store.fields(t).model_dump_json()) for t in store.tasks())

    parallel = tmp_path / "parallel"
    out = _run(
        "batch", str(papers), "--auto-approve", "--workers", "2", "--data-dir", str(parallel)
    )
    assert "3 papers, 1 failed" in out and "Traceback" not in out
    for line in ("one: ready", "two: ready", "broken: failed"):
        assert line in out
    store = Store(f"sqlite:///{parallel / 'expcurate.db'}")
    assert [p.status for p in store.papers() if p.id != "broken"] == ["ready", "ready"]
    sequential = tmp_path / "sequential"
    _run("batch", str(papers), "--auto-approve", "--data-dir", str(sequential))
    assert tasks_of(parallel) == tasks_of(sequential) != []


def test_a_flow_run_without_the_cli_admits_papers_the_same_way(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """A deployment run of curate-paper gets the checks `expcurate extract` gets: a missing
    PDF fails the paper at ingest with the reason, before any stage runs."""
    from expcurate.settings import override_settings
    from flows.curate import curate_paper, paper_result

    with override_settings(data_dir=tmp_path / "data", db_url="", model="heuristic") as s:
        paper = PaperListEntry(
            id="p", pdf_url=str(tmp_path / "nowhere.pdf"), code_url=str(sample_repo)
        )
        state = curate_paper(paper, return_state=True)
        summary = paper_result(state)
        paper = Store(s.database_url()).require_paper("p")
    # Prefect shows the flow run failed, with the reason.
    assert state.is_failed() and state.message == f"paper p failed at ingest: {summary.error}"
    assert (summary.status.value, summary.stage, summary.stages) == ("failed", "ingest", {})
    assert paper.error == summary.error and paper.error.startswith("PDF not found")


def test_without_a_prefect_server_the_same_flows_run_in_process(
    tmp_path: Path, sample_repo: Path
) -> None:
    """No PREFECT_API_URL: no temporary server is started (it could not start here), and a
    batch, sequential or on two worker processes, ends with the same tasks; `advance` and
    `approve` work the same way."""
    good = ROOT / "data" / "sample" / "paper.pdf"
    papers = sample_paper_list(tmp_path, sample_repo)
    one_by_one, side_by_side = tmp_path / "seq", tmp_path / "par"
    done = run_cli(["batch", str(papers), "--auto-approve"], one_by_one)
    assert done.returncode == 0 and "2 papers, 0 failed" in done.stdout, done.stdout + done.stderr
    done = run_cli(["batch", str(papers), "--auto-approve", "--workers", "2"], side_by_side)
    assert done.returncode == 0 and "2 papers, 0 failed" in done.stdout, done.stdout + done.stderr
    assert tasks_in(one_by_one) == tasks_in(side_by_side) != []
    assert {t[2] for t in tasks_in(side_by_side)} == {"approved"}

    # checkpoints walked without a server: extract stops at review, approve runs what is due
    walked = tmp_path / "walked"
    done = run_cli(
        ["extract", "--pdf", str(good), "--repo", str(sample_repo), "--paper-id", "w"], walked
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for stage in ("ingest", "parse", "mine"):
        run_cli(["approve", "--paper", "w", "--stage", stage], walked)
    store = Store(f"sqlite:///{walked / 'expcurate.db'}")
    assert store.current_runs("w")["tasks"].status == "awaiting_review"


def test_workers_take_the_largest_papers_first(tmp_path: Path) -> None:
    """So the last papers taken are short and no worker idles while another finishes a long
    one; a PDF known only by URL keeps its place after the local ones."""
    from flows.papers import largest_first

    small, large = tmp_path / "small.pdf", tmp_path / "large.pdf"
    small.write_bytes(b"%PDF-1.4\n" + b"x" * 10)
    large.write_bytes(b"%PDF-1.4\n" + b"x" * 10_000)

    def entry(n: int, pdf: str) -> PaperListEntry:
        return PaperListEntry(id=str(n), pdf_url=pdf, code_url="repo")

    entries = [
        entry(1, "https://example.org/a.pdf"),
        entry(2, str(small)),
        entry(3, f"file://{large}"),
        entry(4, "https://example.org/b.pdf"),
        entry(5, str(tmp_path / "missing.pdf")),
    ]
    assert [e.id for e in largest_first(entries)] == ["3", "2", "1", "4", "5"]
