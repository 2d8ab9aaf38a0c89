"""Import of EXP-Bench files, export of releases, and the round trip between them."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
import typer
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from typer.testing import CliRunner

from expcurate.cli import package as cli_package
from expcurate.curation.importer import import_expbench
from expcurate.curation.publish import PublishError, export
from expcurate.curation.review import (
    ReviewError,
    approve_stage,
    decide_task,
    due_stages,
    override_errors,
)
from expcurate.records import (
    DesignComplexity,
    ExpBenchFile,
    ExpBenchTask,
    FollowUpIdea,
    Stage,
)
from expcurate.settings import Settings
from expcurate.store import Store
from extractors.package import ReleasePaper, write_release
from extractors.package.tasks_file import read_expbench
from extractors.validate import check_schema

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("EXPCURATE_EXPBENCH_DIR", ROOT / ".." / "shared" / "expbench"))
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": os.devnull}  # fmt: skip


def _git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)
    return out.stdout.decode().strip()


# ------------------------------------------------------------------ round trip (hypothesis)

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_path = st.from_regex(r"[a-z]{1,6}(/[a-z_]{1,6}){0,2}\.(py|sh|yaml)", fullmatch=True)
_step = st.builds(
    lambda k, p, a, n, words: f"Step {k}: {words or 'do it'} ({p}:{a}-{a + n})",
    st.integers(1, 20), _path, st.integers(1, 500), st.integers(0, 50), _text,
)  # fmt: skip
_vars = st.dictionaries(
    st.text(min_size=1, max_size=8), st.one_of(_text, st.lists(_text, max_size=3)), max_size=3
)
_task = st.builds(
    ExpBenchTask,
    question=_text.map(str.strip),
    method=_text,
    expected_outcome=_text,
    design_complexity=st.builds(
        DesignComplexity,
        constant_variables=_vars,
        independent_variables=_vars,
        dependent_variables=_vars,
    ),
    source=st.lists(_path, max_size=3),
    masked_source=st.lists(_path, max_size=2),
    usage_instructions=_text,
    requirements=st.lists(_step, max_size=4),
    agent_instructions=_text,
    no_answer=_text,
    subsection_source=_text,
)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tasks=st.lists(_task, min_size=1, max_size=4),
    extra=st.sampled_from([{}, {"mode": "A"}, {"design_ambiguity": {"x": ["y"]}}]),
    takeaways=st.lists(_text, max_size=2),
)
def test_export_then_import_gives_the_same_tasks(
    tasks: list[ExpBenchTask], extra: dict[str, object], takeaways: list[str]
) -> None:
    """task → release → import → the same published task, annotations and takeaways included."""
    tasks = [ExpBenchTask.model_validate({**t.model_dump(), **extra}) for t in tasks]
    paper = ReleasePaper(
        id="4242",
        conference="iclr2099",
        title="T",
        pdf_url="https://example.org/p.pdf",
        code_url="https://example.org/r",
        commit="a" * 40,
        tasks=ExpBenchFile(
            questions=tasks,
            main_takeaways=takeaways,
            follow_up_work_ideas=[FollowUpIdea(idea="more", experiment_design="bigger")],
        ),
        provenance=[{} for _ in tasks],
    )
    with tempfile.TemporaryDirectory() as tmp:
        write_release([paper], Path(tmp) / "r")
        found = read_expbench(Path(tmp) / "r")
    assert found.errors == []
    (back,) = found.papers
    assert (back.id, back.conference, back.commit) == ("4242", "iclr2099", "a" * 40)
    assert [t.fields.published() for t in back.tasks] == tasks
    assert all(t.repairs == [] for t in back.tasks)
    assert back.main_takeaways == takeaways
    assert back.follow_up_work_ideas == paper.tasks.follow_up_work_ideas


# ------------------------------------------------------------------ import → review → export


@pytest.fixture
def bench(tmp_path: Path) -> tuple[Path, Path, str]:
    """A repository checkout, and an EXP-Bench folder of one paper whose two tasks use it."""
    repos = tmp_path / "repos"
    code = repos / "gatenet"
    (code / "src").mkdir(parents=True)
    (code / "src" / "train.py").write_text("".join(f"step_{i} = {i}\n" for i in range(20)))
    (code / "README.md").write_text("We get 81.23 and 77.45.\n")
    _git(code, "init", "-q")
    _git(code, "add", "-A")
    _git(code, "commit", "-q", "-m", "v1")
    commit = _git(code, "rev-parse", "HEAD")
    folder = tmp_path / "bench" / "outputs" / "logs" / "iclr2099" / "777"
    folder.mkdir(parents=True)
    good = {
        "hypothesis": "Does gating improve accuracy?",
        "method": "Train and compare.",
        "expected_outcome": "Accuracy rises to 81.23.",
        "design_complexity": {"design_complexity": {"independent_variables": {"gate": ["on"]}}},
        "source": ["/workspace/src/train.py"],
        "masked_source": ["/workspace/src/train.py"],
        "requirements": ["Step 1: Train (/workspace/src/train.py:1-5)"],
        "agent_instructions": "Write the training loop.",
    }
    broken = {**good, "hypothesis": "Gating helps.", "masked_source": ["/workspace/src/gone.py"]}
    body = {"questions": [good, broken], "main_takeaways": ["Gating helps."]}
    (folder / "777_complete_final.json").write_text(json.dumps(body))
    entry = {"id": "777", "title": "Gates", "pdf_url": "https://x/p.pdf",
             "code_url": "https://github.com/o/gatenet", "repo": "o/gatenet", "commit": commit}  # fmt: skip
    (tmp_path / "bench" / "papers.jsonl").write_text(json.dumps(entry) + "\n")
    return tmp_path / "bench", repos, commit


def test_import_repairs_validates_and_keeps_reviews(
    bench: tuple[Path, Path, str], store: Store, settings: Settings
) -> None:
    folder, repos, commit = bench
    summary = import_expbench(store, settings, folder, repos=repos)
    assert (summary.papers, summary.tasks, summary.tasks_with_errors) == (1, 2, 1)
    paper = store.require_paper("777")
    assert (paper.conference, paper.commit, paper.title) == ("iclr2099", commit, "Gates")
    good, broken = store.tasks("777")
    assert good.stage == broken.stage == "package"
    assert good.status == broken.status == "awaiting_review"
    fields = store.fields(good)
    assert fields.question == "Does gating improve accuracy?"
    assert fields.source == ["src/train.py"]
    assert fields.design_complexity.independent_variables == {"gate": ["on"]}
    assert store.revisions(good.id or 0)[0].author == "import:expbench"
    assert summary.flagged["error"]["question_form"] == 1
    assert summary.flagged["error"]["masked_source_exists"] == 1
    assert summary.flagged["warning"]["schema"] == 2
    assert summary.flagged["info"]["outcome_grounded"] == 2
    assert due_stages(store, "777") == []
    approve_stage(store, "777", Stage.package, "alice")
    assert store.require_paper("777").status == "ready"
    revisions = sum(len(store.revisions(t.id or 0)) for t in store.tasks())
    import_expbench(store, settings, folder, repos=repos)
    assert sum(len(store.revisions(t.id or 0)) for t in store.tasks()) == revisions
    assert {t.status for t in store.tasks("777")} == {"approved"}


def test_export_refuses_unresolved_errors_until_overridden(
    bench: tuple[Path, Path, str], store: Store, settings: Settings
) -> None:
    folder, repos, _ = bench
    import_expbench(store, settings, folder, repos=repos)
    approve_stage(store, "777", Stage.package, "alice")
    broken = store.tasks("777")[1]
    assert broken.id is not None
    with pytest.raises(PublishError) as refused:
        export(store, settings, "r1")
    assert f"task {broken.id} (777)" in str(refused.value)
    assert "masked_source_exists" in str(refused.value) and "override" in str(refused.value)
    with pytest.raises(ReviewError, match="reason"):
        override_errors(store, broken.id, "bob", "  ")
    override_errors(store, broken.id, "bob", "kept to audit the harness")
    summary = export(store, settings, "r1")
    assert summary.tasks == 2 and summary.unmasked == 1
    rows = [json.loads(x) for x in (summary.path / "tasks.jsonl").read_text().splitlines()]
    assert rows[1]["provenance"]["overrides"][0]["reason"] == "kept to audit the harness"
    assert "patches not built" in rows[1]["masking"]["note"]


def test_override_holds_only_for_the_revision_it_was_made_on(
    bench: tuple[Path, Path, str], store: Store, settings: Settings
) -> None:
    folder, repos, _ = bench
    import_expbench(store, settings, folder, repos=repos)
    approve_stage(store, "777", Stage.package, "alice")
    broken = store.tasks("777")[1]
    assert broken.id is not None
    override_errors(store, broken.id, "bob", "fine")
    fields = store.fields(broken)
    store.edit_task(broken.id, fields.model_copy(update={"method": "x"}), reviewer="carol",
                    expected_head=broken.head)  # fmt: skip
    with pytest.raises(PublishError, match=f"task {broken.id}"):
        export(store, settings, "r2")


def test_release_layout_is_what_the_harness_reads(
    bench: tuple[Path, Path, str], store: Store, settings: Settings, tmp_path: Path
) -> None:
    folder, repos, commit = bench
    import_expbench(store, settings, folder, repos=repos)
    good = store.tasks("777")[0]
    assert good.id is not None
    decide_task(store, good.id, "approve", "alice")
    summary = export(store, settings, "v1")
    out = summary.path
    final = out / "outputs" / "logs" / "iclr2099" / "777" / "777_complete_final.json"
    body = json.loads(final.read_text())
    assert list(body) == ["questions", "main_takeaways", "follow_up_work_ideas"]
    assert body["main_takeaways"] == ["Gating helps."]
    assert len(body["questions"]) == 1 and "hypothesis" not in body["questions"][0]
    assert check_schema(body["questions"][0]) == []
    (line,) = (out / "papers.jsonl").read_text().splitlines()
    entry = json.loads(line)
    assert entry["id"] == "777" and entry["id"].isdigit() and entry["commit"] == commit
    assert {"id", "title", "pdf_url", "code_url"} <= set(entry)
    manifest = json.loads((out / "manifest.json").read_text())
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest
    (row,) = [json.loads(x) for x in (out / "tasks.jsonl").read_text().splitlines()]
    prov = row["provenance"]
    assert prov["repo_commit"] == commit and prov["models"] == ["import:expbench"]
    assert prov["reviewers"] == ["alice"]
    masking = row["masking"]
    assert masking["patches"] and masking["files"] == ["src/train.py"]
    checkout = tmp_path / "harness"
    subprocess.run(["git", "clone", "-q", str(repos / "gatenet"), str(checkout)], check=True)
    _git(checkout, "checkout", "-q", commit)
    original = (checkout / "src" / "train.py").read_bytes()
    _git(checkout, "apply", str(out / masking["mask_patch"]))
    assert not (checkout / "src" / "train.py").exists()
    _git(checkout, "apply", str(out / masking["restore_patch"]))
    assert (checkout / "src" / "train.py").read_bytes() == original
    again = export(store, settings, "v2")
    assert (again.path / "manifest.json").read_bytes() == (out / "manifest.json").read_bytes()


def test_cli_import_prints_counts_per_validator(
    bench: tuple[Path, Path, str], tmp_path: Path
) -> None:
    folder, repos, _ = bench
    app = typer.Typer()
    cli_package.register(app)
    data = str(tmp_path / "data")
    result = CliRunner().invoke(
        app, ["import-expbench", str(folder), "--repos", str(repos), "--data-dir", data]
    )
    assert result.exit_code == 0, result.output
    assert "imported 1 papers, 2 tasks (1 with errors)" in result.output
    assert "masked_source_exists" in result.output
    for name in ("import-expbench", "override", "mask", "mask-also"):
        help_text = CliRunner().invoke(app, [name, "--help"]).output
        assert len(help_text.split("Usage:")[1]) > 100, name
    result = CliRunner().invoke(
        app, ["override", "--task", "2", "--reason", "ok", "--data-dir", data]
    )
    assert result.exit_code == 0 and "overrode" in result.output
    out = tmp_path / "starter"
    result = CliRunner().invoke(app, ["mask", "--task", "1", "--out", str(out), "--data-dir", data])
    assert result.exit_code == 0, result.output
    assert (
        not (out / "tree" / "src" / "train.py").exists() and (out / "tree" / "README.md").exists()
    )


def test_mask_also_hides_the_files_the_leakage_check_listed(
    bench: tuple[Path, Path, str], store: Store, settings: Settings, tmp_path: Path
) -> None:
    folder, repos, _ = bench
    import_expbench(store, settings, folder, repos=repos)
    good = store.tasks("777")[0]
    assert [f.paths for f in good.flag_list() if f.check == "leakage"] == [["README.md"]]
    app = typer.Typer()
    cli_package.register(app)
    data = str(settings.data_dir)
    result = CliRunner().invoke(app, ["mask-also", "--task", str(good.id), "--data-dir", data])
    assert result.exit_code == 0, result.output
    assert store.fields(store.require_task(good.id or 0)).mask_also == ["README.md"]


@pytest.mark.skipif(
    not (SHARED / "dev").is_dir(), reason="EXP-Bench dev data not found next to the repo"
)
def test_shared_expbench_files_import_with_their_inconsistencies_repaired(
    store: Store, settings: Settings
) -> None:
    """The 11 development papers: every task imported, repaired ones flagged as such."""
    summary = import_expbench(store, settings, SHARED / "dev")
    assert (summary.papers, summary.tasks) == (11, 110)
    assert summary.errors == [] and summary.listed_without_file == []
    assert summary.flagged["warning"]["schema"] >= 10  # wrapped design_complexity, renames
    assert summary.flagged["error"]["question_form"] >= 10  # statements as questions
    assert summary.flagged["info"]["source_exists"] == 110  # no checkouts given
    assert {p.conference for p in store.papers()} == {"iclr2024", "neurips2024"}
    for task in store.tasks():
        fields = store.fields(task)
        assert not any(p.startswith("/workspace/") for p in fields.source + fields.masked_source)
        assert "design_complexity" not in fields.design_complexity.model_dump()


def test_a_release_is_swapped_in_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill while a release is written leaves the previous one intact; a kill between the
    two renames of the swap is undone by the next write."""
    import extractors.package.export as export_mod

    paper = ReleasePaper(
        id="4242", conference="iclr2099", title="T", pdf_url="p.pdf", code_url="r",
        commit="a" * 40, tasks=ExpBenchFile(questions=[]), provenance=[],
    )  # fmt: skip
    out = tmp_path / "published" / "r"
    write_release([paper], out)
    before = (out / "manifest.json").read_text()

    def killed(*_: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(export_mod, "tasks_file_text", killed)
    with pytest.raises(KeyboardInterrupt):
        write_release([paper.model_copy(update={"id": "4343"})], out)
    assert (out / "manifest.json").read_text() == before  # the old release, whole
    monkeypatch.undo()
    # Killed between the renames: the release sits under its hidden name, none under its own.
    out.rename(tmp_path / "published" / ".r.previous")
    manifest = write_release([paper.model_copy(update={"id": "4343"})], out)
    assert manifest["papers"] == 1 and (out / "papers.jsonl").read_text().count("4343") == 1
    assert sorted(p.name for p in out.parent.iterdir()) == ["r"]  # nothing left beside it
