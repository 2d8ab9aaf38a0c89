"""Re-extraction after the code moved: a paper curated and approved with a reviewer's edit,
then commits that shift lines, rename a script, change a default and delete a function, with
`expcurate reextract` after each (a real git repository built in the test)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import make_sample_repo
from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.curation.review import decide_task
from expcurate.records import PaperListEntry, TaskStatus
from expcurate.settings import Settings, override_settings
from expcurate.store import Store

pytestmark = pytest.mark.databases
ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip


def _commit(repo: Path, message: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=env)


def _reextract(settings: Settings, *args: str) -> str:
    on = ["--data-dir", str(settings.data_dir), "--db-url", settings.database_url()]
    result = CliRunner().invoke(app, ["reextract", *args, *on])
    assert result.exit_code == 0, result.output
    return result.output


def _tree(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def _steps(store: Store, task_id: int, path: str) -> list[str]:
    return [s for s in store.fields(store.require_task(task_id)).requirements if f"({path}:" in s]


def _lines(step: str) -> tuple[int, int]:
    """The (first, last) line a step cites: `(path:a-b)` or `(path:a)`."""
    m = re.search(r":(\d+)(?:-(\d+))?\)$", step)
    assert m, step
    return int(m[1]), int(m[2] or m[1])


def _curated(tmp_path: Path, settings: Settings, pdf_url: str = "") -> Path:
    """The sample paper curated with auto-approval from a git repository made in the test
    (the in-process engine); the repository."""
    from flows.run import curate

    repo = make_sample_repo(tmp_path / "repo")
    pdf = pdf_url or str(ROOT / "data/sample/paper.pdf")
    with override_settings(**{**settings.model_dump(), "engine": "local"}):
        entry = PaperListEntry(id="p", pdf_url=pdf, code_url=str(repo))
        assert curate(entry, auto_approve=True).status.value == "ready"
    return repo


def test_references_follow_the_code_and_the_reviewers_edit_is_kept(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from expcurate.curation.publish import export

    monkeypatch.setenv("EXPCURATE_ENGINE", "local")
    repo = _curated(tmp_path, settings)
    tasks = [t for t in store.tasks("p") if store.fields(t).requirements]
    assert tasks and all(t.status == TaskStatus.approved for t in tasks)
    edited = tasks[0]
    assert edited.id is not None
    # A reviewer reopens the task and approves it with an edit of their own.
    store.set_task_status(edited.id, TaskStatus.awaiting_review)
    mine = store.fields(edited).model_copy(
        update={
            "question": "Reviewer's question: does GateMix beat the baselines?",
            "usage_instructions": "1. bash scripts/run_sweep.sh\n2. python train.py --epochs 5",
        }
    )
    decide_task(store, edited.id, "approve", "ann", fields=mine, expected_head=edited.head)
    assert store.require_paper("p").status == "ready"
    export(store, settings, "before")
    before = _tree(settings.published_dir / "before")
    runs = {s: r.id for s, r in store.current_runs("p").items()}
    train_steps = {t.id: _steps(store, t.id, "train.py") for t in tasks if t.id is not None}
    cited = {
        int(m.group(1))
        for steps in train_steps.values()
        for s in steps
        for m in [re.search(r"\(train\.py:(\d+)(?:-\d+)?\)", s)]
        if m
    }
    assert cited, train_steps

    # 1. Lines shift: three lines above everything train.py's steps cite.
    train = repo / "train.py"
    train.write_text("# one\n# two\n# three\n" + train.read_text())
    _commit(repo, "a header")
    out = _reextract(settings, "p")
    assert "reran ingest, mine;" in out and "carried to the new code, approval kept" in out
    after = {s: r.id for s, r in store.current_runs("p").items()}
    assert {s for s in runs if runs[s] != after[s]} == {"ingest", "mine"}  # minimal
    for task_id, steps in train_steps.items():
        moved = _steps(store, task_id, "train.py")
        assert len(moved) == len(steps)
        for old, new in zip(steps, moved, strict=True):
            first, last = _lines(old)
            assert _lines(new) == (first + 3, last + 3), new
        assert store.require_task(task_id).status == TaskStatus.approved
    kept = store.fields(store.require_task(edited.id))
    assert kept.question == mine.question and kept.usage_instructions == mine.usage_instructions
    assert store.require_paper("p").status == "ready"
    revisions = {t.id: len(store.revisions(t.id)) for t in tasks if t.id is not None}
    assert _reextract(settings, "p").startswith("p: nothing changed; nothing rerun")
    assert {t.id: len(store.revisions(t.id)) for t in tasks if t.id is not None} == revisions

    # 2. A script is renamed: sources and the reviewer's usage follow it.
    subprocess.run(["git", "mv", "scripts/run_sweep.sh", "scripts/sweep.sh"], cwd=repo, check=True)
    _commit(repo, "rename")
    _reextract(settings, "p")
    kept = store.fields(store.require_task(edited.id))
    assert "bash scripts/sweep.sh" in kept.usage_instructions
    assert kept.question == mine.question
    for task in tasks:
        fields = store.fields(store.require_task(task.id or 0))
        assert "scripts/run_sweep.sh" not in fields.source
    assert store.require_paper("p").status == "ready"

    # 3. A default changes inside the cited arguments: flagged with old and new code.
    lines = train.read_text().splitlines(keepends=True)
    target = _lines(train_steps[edited.id][0])[0] + 3  # inside the edited task's first range
    indent = lines[target - 1][: len(lines[target - 1]) - len(lines[target - 1].lstrip())]
    lines[target - 1] = indent + '# default=7, help="changed"\n'
    train.write_text("".join(lines))
    _commit(repo, "a default")
    out = _reextract(settings, "p")
    assert "back to review for drifted references" in out and "awaiting review at package" in out
    flagged = store.require_task(edited.id)
    assert flagged.status == TaskStatus.awaiting_review
    (drift,) = [f for f in flagged.flag_list() if f.check == "reference_drift"][:1]
    assert "changed" in drift.message and 'default=7, help="changed"' in drift.message
    assert "--- at" in drift.message  # the old code, then the new
    assert store.fields(flagged).question == mine.question
    assert store.require_paper("p").status == "awaiting_review"
    # The reviewer looks, approves: the flag is settled and the paper is ready again.
    for task in store.tasks("p", status=TaskStatus.awaiting_review):
        assert task.id is not None
        decide_task(store, task.id, "approve", "ann")
        assert not [
            f for f in store.require_task(task.id).flag_list() if f.check == "reference_drift"
        ]
    assert store.require_paper("p").status == "ready"

    # 4. A function is deleted: the steps citing it are flagged.
    ranges = [
        (m[1], int(m[2]), int(m[3]))
        for t in store.tasks("p")
        for r in store.fields(t).requirements
        if (m := re.search(r"\(([^():]+\.py):(\d+)-(\d+)\)$", r))
    ]
    path, first, last = next(
        (p, a, b) for p, a, b in ranges if p.startswith("gatemix/") and b - a >= 2
    )
    code = repo / path
    code_lines = code.read_text().splitlines(keepends=True)
    code.write_text("".join(code_lines[: first - 1] + code_lines[last:]))
    _commit(repo, "drop a definition")
    out = _reextract(settings, "p")
    assert "back to review" in out
    messages = [
        f.message for t in store.tasks("p") for f in t.flag_list() if f.check == "reference_drift"
    ]
    assert any(f"{path}:{first}-{last}" in m for m in messages), messages

    # A release made now is a new release; the one made before is byte-identical.
    for task in store.tasks("p", status=TaskStatus.awaiting_review):
        decide_task(store, task.id or 0, "approve", "ann")
    export(store, settings, "after")
    assert _tree(settings.published_dir / "before") == before
    assert (settings.published_dir / "after" / "papers.jsonl").read_text() != (
        settings.published_dir / "before" / "papers.jsonl"
    ).read_text()
    assert (
        (settings.published_dir / "before.changes.md")
        .read_text()
        .startswith("# Changes in before\n\nThe first release:")
    )
    changes = (settings.published_dir / "after.changes.md").read_text()
    assert "Since before:" in changes and "- p: code " in changes
    assert f"- changed p/{edited.key}: revision " in changes
    assert "references carried from" in changes and "(machine:reextract)" in changes


def test_a_repository_that_is_gone_leaves_the_paper_as_it_was(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    monkeypatch.setenv("EXPCURATE_ENGINE", "local")
    repo = _curated(tmp_path, settings)
    runs = {s: r.id for s, r in store.current_runs("p").items()}
    shutil.rmtree(repo)
    on = ["--data-dir", str(settings.data_dir), "--db-url", settings.database_url()]
    result = CliRunner().invoke(app, ["reextract", "p", *on])
    assert result.exit_code == 2, result.output
    assert "p: not re-extracted: repository path" in result.output
    assert {s: r.id for s, r in store.current_runs("p").items()} == runs
    assert store.require_paper("p").status == "ready"


def test_a_new_drafting_version_reruns_tasks_and_only_changed_drafts_go_back_to_review(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drafting changed (a new prompt version): equal drafts keep their approval at the end
    of the pipeline, a changed draft is merged with the reviewer's edit and goes back to
    review (setup and package run again for it once approved), a draft no longer made is
    retired; the code did not move, so no reference is touched."""
    import extractors.tasks as drafting
    from expcurate.records import DraftSet
    from flows.run import advance

    monkeypatch.setenv("EXPCURATE_ENGINE", "local")
    _curated(tmp_path, settings)
    first, second, *rest = sorted(store.tasks("p"), key=lambda t: t.position)
    assert first.id is not None and second.id is not None and rest
    store.set_task_status(first.id, TaskStatus.awaiting_review)
    edit = store.fields(first).model_copy(update={"method": "The reviewer's method."})
    decide_task(store, first.id, "approve", "ann", fields=edit, expected_head=first.head)
    runs = {s: r.id for s, r in store.current_runs("p").items()}

    real = drafting.draft_tasks

    def drafted_again(*args: object, **kwargs: object) -> DraftSet:
        drafts = real(*args, **kwargs)  # type: ignore[arg-type]
        keep = [d for d in drafts.tasks if d.key != second.key]
        for d in keep:
            if d.key == first.key:
                d.expected_outcome += " (re-drafted)"
        return drafts.model_copy(update={"tasks": keep})

    monkeypatch.setattr(drafting, "draft_tasks", drafted_again)
    monkeypatch.setattr(drafting, "prompt_version", lambda model: "heuristic-next")
    out = _reextract(settings, "p")
    assert "reran tasks" in out and "1 draft(s) changed" in out and "1 task(s) retired" in out
    after = {s: r.id for s, r in store.current_runs("p").items()}
    assert {s for s in runs if runs[s] != after.get(s)} == {"tasks", "setup", "package"}
    changed = store.require_task(first.id)
    fields = store.fields(changed)
    assert (changed.stage, changed.status) == ("tasks", TaskStatus.awaiting_review)
    assert fields.method == "The reviewer's method." and fields.expected_outcome.endswith(
        "(re-drafted)"
    )
    assert store.require_task(second.id).status == TaskStatus.retired
    for task in rest:
        again = store.require_task(task.id or 0)
        assert (again.stage, again.status, again.head) == ("package", "approved", task.head)
    # The reviewer approves the changed draft; setup and package run for it alone.
    decide_task(store, first.id, "approve", "ann")
    with override_settings(**{**settings.model_dump(), "engine": "local", "auto_approve": True}):
        summary = advance("p")
    assert summary.status.value == "ready", summary
    done = store.require_task(first.id)
    assert (done.stage, done.status) == ("package", TaskStatus.approved)
    assert store.fields(done).method == "The reviewer's method."
    assert store.require_task(second.id).status == TaskStatus.retired
    assert _reextract(settings, "p").startswith("p: nothing changed")


def test_drift_lists_references_that_no_longer_point_at_the_same_code(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`expcurate drift` on a release and on the store, after the code moved on: moved and
    changed references listed per task, nothing changed in the store or the release."""
    from expcurate.curation.publish import export

    monkeypatch.setenv("EXPCURATE_ENGINE", "local")
    repo = _curated(tmp_path, settings)
    export(store, settings, "r1")
    on = ["--data-dir", str(settings.data_dir), "--db-url", settings.database_url()]
    result = CliRunner().invoke(app, ["drift", "--release", "r1", *on])
    assert result.exit_code == 0, result.output
    assert "p (" in result.output and ": 0 drifted" in result.output

    train = repo / "train.py"
    train.write_text("# a header line\n" + train.read_text())
    model = repo / "gatemix" / "model.py"
    lines = model.read_text().splitlines(keepends=True)
    lines[89] = "        pass  # changed\n"  # inside the cited gatemix/model.py:83-100
    model.write_text("".join(lines))
    _commit(repo, "move on")
    release = _tree(settings.published_dir / "r1")
    heads = {t.id: t.head for t in store.tasks("p")}
    # the first step of a task citing train.py, as drift should list it one line down
    number, step = next(
        (n, r)
        for t in store.tasks("p")
        for n, r in enumerate(store.fields(t).requirements, start=1)
        if "(train.py:" in r
    )
    first, last = _lines(step)
    shifted = (
        f"requirement {number} train.py:{first}-{last} moved (now train.py:{first + 1}-{last + 1})"
    )
    for args in (["--release", "r1"], ["--release", str(settings.published_dir / "r1")], []):
        result = CliRunner().invoke(app, ["drift", *args, *on])
        assert result.exit_code == 0, result.output
        out = result.output
        assert shifted in out, out
        assert "gatemix/model.py:83-100 changed" in out
        assert re.search(r"references in \d+ tasks of 1 papers: \d+ drifted \(\d+%\)", out)
    assert _tree(settings.published_dir / "r1") == release
    assert {t.id: t.head for t in store.tasks("p")} == heads
    result = CliRunner().invoke(app, ["drift", "--release", "nope", *on])
    assert result.exit_code == 2 and "no release 'nope'" in result.output
    broken = tmp_path / "broken"
    shutil.copytree(settings.published_dir / "r1", broken)
    with (broken / "tasks.jsonl").open("a") as handle:
        handle.write('{"paper": "p", "index": 9, "requirements": [\n')
    result = CliRunner().invoke(app, ["drift", "--release", str(broken), *on])
    assert result.exit_code == 2 and "tasks.jsonl, line" in result.output
    assert "not JSON" in result.output and "Traceback" not in result.output

    # The release imported as an EXP-Bench release (tasks awaiting review): the same drift.
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "repo").symlink_to(repo)
    other = ["--data-dir", str(tmp_path / "imported")]
    result = CliRunner().invoke(
        app, ["import-expbench", str(settings.published_dir / "r1"), "--repos", str(repos), *other]
    )
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["drift", *other])
    assert result.exit_code == 0, result.output
    assert shifted in result.output


def test_a_new_setup_agent_version_searches_again_and_only_changed_setups_go_back(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new setup agent version: every task that went through setup is searched again; an
    equal setup keeps its approval (however the reviewer edited the task since), a changed
    one is merged with the reviewer's edits and goes back to the setup checkpoint."""
    import extractors.agent as agent

    monkeypatch.setenv("EXPCURATE_ENGINE", "local")
    _curated(tmp_path, settings)
    first, *rest = [t for t in sorted(store.tasks("p"), key=lambda t: t.position)
                    if store.fields(t).requirements]  # fmt: skip
    assert first.id is not None and rest
    store.set_task_status(rest[0].id or 0, TaskStatus.awaiting_review)
    edit = store.fields(rest[0]).model_copy(update={"question": "The reviewer's question?"})
    decide_task(store, rest[0].id or 0, "approve", "ann", fields=edit, expected_head=rest[0].head)
    rest[0] = store.require_task(rest[0].id or 0)

    real = agent.recover_setups

    def searched_again(drafts: Any, *args: Any, on_setup: Any = None, **kwargs: Any) -> Any:
        def record(i: int, setup: Any) -> None:
            if drafts[i].key == first.key:
                setup = setup.model_copy(update={"usage_instructions": "1. python train.py"})
            on_setup(i, setup)

        return real(drafts, *args, on_setup=record, **kwargs)

    monkeypatch.setattr(agent, "recover_setups", searched_again)
    monkeypatch.setattr(agent, "prompt_version", lambda model: "agent-next")
    out = _reextract(settings, "p")
    assert "setup agent version" in out and "reran setup" in out
    assert "1 setup(s) changed, back to review" in out
    changed = store.require_task(first.id)
    assert (changed.stage, changed.status) == ("setup", TaskStatus.awaiting_review)
    assert store.fields(changed).usage_instructions == "1. python train.py"
    for task in rest:
        again = store.require_task(task.id or 0)
        assert (again.stage, again.status, again.head) == ("package", "approved", task.head)
    assert store.fields(store.require_task(rest[0].id or 0)).question == "The reviewer's question?"
    assert "package" not in store.current_runs("p")  # runs again once the setup is approved
    assert _reextract(settings, "p").startswith("p: nothing changed")


@pytest.mark.parametrize("point", ["before-mine", "carry"])
def test_a_reextraction_killed_half_way_is_finished_by_the_next_one(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    """SIGKILL mid-way (before the miner reruns; after the first task was carried), then
    `reextract` again: every reference shifted exactly once, approvals kept, nothing pending."""
    import signal
    import sys
    import time

    monkeypatch.setenv("EXPCURATE_ENGINE", "local")
    repo = _curated(tmp_path, settings)
    steps = {t.id: store.fields(t).requirements for t in store.tasks("p")}
    train = repo / "train.py"
    train.write_text("# one\n# two\n# three\n" + train.read_text())
    _commit(repo, "a header")

    env = {k: v for k, v in os.environ.items() if not k.startswith("EXPCURATE_")}
    env |= {"EXPCURATE_ENGINE": "local", "EXPCURATE_PAUSE_AT": point,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
    on = ["--data-dir", str(settings.data_dir), "--db-url", settings.database_url()]
    killed = subprocess.Popen(
        [sys.executable, "-m", "expcurate", "reextract", "p", *on], env=env, cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    marker = settings.resolved_data_dir() / "artifacts" / "p" / f"paused-{point}"
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert killed.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    killed.send_signal(signal.SIGKILL)
    killed.wait()

    out = _reextract(settings, "p")
    assert "not re-extracted" not in out, out
    for task_id, before in steps.items():
        after = store.fields(store.require_task(task_id or 0)).requirements
        assert len(after) == len(before)
        for old, new in zip(before, after, strict=True):
            if "(train.py:" not in old:
                assert old == new
                continue
            first, last = _lines(old)
            assert _lines(new) == (first + 3, last + 3), new
    assert {t.status for t in store.tasks("p")} == {"approved"}
    assert store.require_paper("p").status == "ready"
    assert not (
        settings.resolved_data_dir() / "artifacts" / "p" / "reextract-pending.json"
    ).exists()
    assert _reextract(settings, "p").startswith("p: nothing changed")


def test_a_pdf_given_by_url_is_downloaded_again_and_a_changed_one_reruns_the_paper_side(
    tmp_path: Path, settings: Settings, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The PDF behind the same URL (a real HTTP server on loopback) changes: re-extraction
    downloads it, sees new bytes, reruns ingest and parse; the same bytes again: nothing."""
    import functools
    import http.server
    import shutil
    import threading

    import pymupdf

    served = tmp_path / "site"
    served.mkdir()
    shutil.copyfile(ROOT / "data/sample/paper.pdf", served / "paper.pdf")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/paper.pdf"
    try:
        monkeypatch.setenv("EXPCURATE_ENGINE", "local")
        _curated(tmp_path, settings, pdf_url=url)
        assert _reextract(settings, "p").startswith("p: nothing changed")
        doc = pymupdf.open(served / "paper.pdf")  # a new version behind the same URL
        doc.set_metadata({**doc.metadata, "subject": "a corrected version"})
        doc.save(served / "next.pdf")
        doc.close()
        (served / "next.pdf").replace(served / "paper.pdf")
        out = _reextract(settings, "p")
        assert "the paper's PDF" in out and "reran ingest, parse" in out, out
        assert _reextract(settings, "p").startswith("p: nothing changed")
    finally:
        server.shutdown()
