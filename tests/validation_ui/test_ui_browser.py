"""End to end in a real headless Chromium: sign in, review, see the next stage arrive.

`expcurate ui` serves the app on a free loopback port against a copy of a store whose first
phase awaits review; Playwright drives Debian's `chromium` (install it with
`.ci/install-browser`). Approving the last first-phase checkpoint starts the tasks stage in a
real background process, and the queue must show its items without a page reload.

Screenshots of the main pages go to a temporary folder; set EXPCURATE_UPDATE_SCREENSHOTS=1 to
write them to docs/screenshots/ for the README (like a golden file's regenerate switch).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_helpers import PAPER, PASSWORD, ROOT, copy_data

from expcurate.store import Store

# Read at import: the suite's autouse fixture clears EXPCURATE_* before each test runs.
CHROMIUM = Path(os.environ.get("EXPCURATE_CHROMIUM", "/usr/bin/chromium"))
UPDATE_SCREENSHOTS = os.environ.get("EXPCURATE_UPDATE_SCREENSHOTS") == "1"
if not CHROMIUM.exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM}: run .ci/install-browser (or set EXPCURATE_CHROMIUM)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is missing: pip install -e '.[dev]'"
)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
STEP_MS = 30_000  # one click and its rerun, on a loaded machine
STAGE_MS = 100_000  # the tasks stage in a background process (Prefect starts in it)

IDLE_JS = """() => !document.querySelector('[data-stale="true"]')
    && !document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')"""

pytestmark = pytest.mark.timeout(240)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"expcurate ui exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"the review app did not answer at {url}:\n{log.read_text()}")


def _running(pid: int) -> bool:
    """True while the process runs; an exited child its parent has not reaped yet is done."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone between the signal and the read
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _stop_group(pid: int, grace_s: float) -> None:
    """Stop a process group this test started (the app, or the stage run it launched)."""
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and _running(pid):
        time.sleep(0.5)
    if _running(pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)


@pytest.fixture
def app(tmp_path: Path, phase1_template: Path) -> Iterator[tuple[str, Path, list[int]]]:
    with _serve(tmp_path, phase1_template, ["rita"]) as served:
        yield served


@pytest.fixture
def drafted_app(tmp_path: Path, drafted_template: Path) -> Iterator[tuple[str, Path, list[int]]]:
    with _serve(tmp_path, drafted_template, ["rita", "bob"]) as served:
        yield served


@contextlib.contextmanager
def _serve(
    tmp_path: Path, template: Path, reviewers: list[str]
) -> Iterator[tuple[str, Path, list[int]]]:
    data = copy_data(template, tmp_path / "data")
    for name in reviewers:
        Store(f"sqlite:///{data / 'expcurate.db'}").add_user(name, PASSWORD, "reviewer")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "ui.log"
    env = {**os.environ, "EXPCURATE_LAUNCHER": "background", "PREFECT_LOGGING_LEVEL": "WARNING",
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "expcurate", "ui", "--port", str(port), "--data-dir", str(data)],
            cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    launched: list[int] = []
    try:
        _wait_healthy(url, proc, log)
        yield url, data, launched
    finally:
        for pid in launched:  # let the stage run finish its write, then stop it if it hangs
            _stop_group(pid, 60)
        _stop_group(proc.pid, 0)
        proc.wait(timeout=20)


def _shots_dir(tmp_path: Path) -> Path:
    if UPDATE_SCREENSHOTS:
        return ROOT / "docs" / "screenshots"
    return tmp_path / "screenshots"


def test_review_in_a_real_browser(app: tuple[str, Path, list[int]], tmp_path: Path) -> None:
    url, data, launched = app
    expect = sync_api.expect
    # Assertions wait as long as a step may take; page.set_default_timeout does not reach them
    # (their own default, 5 s, is too short for a rerun on a loaded two-core machine).
    expect.set_options(timeout=STEP_MS)
    shots = _shots_dir(tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(STEP_MS)

        def settle() -> None:
            """Wait for the rerun to finish: stale elements of the last run linger until then."""
            page.wait_for_function(IDLE_JS)

        def shot(name: str, height: int = 1000) -> None:
            """Streamlit scrolls inside its own container: a taller window shows more."""
            page.set_viewport_size({"width": 1400, "height": height})
            settle()
            page.wait_for_timeout(400)  # let images finish painting
            page.screenshot(path=str(shots / f"{name}.png"))
            page.set_viewport_size({"width": 1400, "height": 1000})

        page.goto(url)
        expect(page.get_by_text("No page")).to_have_count(0)
        page.get_by_label("Username").fill("rita")
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("heading", name="Review queue")).to_be_visible()
        expect(page.get_by_text("3 items match · 3 await review")).to_be_visible()
        # A reload is a new session: the sign-in cookie keeps the reviewer signed in.
        settle()
        page.wait_for_function("() => document.cookie.includes('expcurate_sign_in=')")
        page.reload()
        expect(page.get_by_role("heading", name="Review queue")).to_be_visible()
        expect(page.get_by_label("Username")).to_have_count(0)

        # The first phase: three checkpoints, the last of which starts the tasks stage.
        settle()
        page.get_by_role("button", name="Next item →").first.click()
        for stage in ("ingest", "parse", "mine"):
            expect(page.get_by_text(f"{stage} checkpoint · {PAPER}")).to_be_visible()
            if stage == "parse":
                page.get_by_text("Table 1 · page 3").click()  # open the first table
                expect(page.get_by_text("page 3 region")).to_be_visible()
                shot("checkpoint", 1500)
            settle()
            _click(page, "Approve")
        notice = page.get_by_text(re.compile(r"started tasks \(background process \d+"))
        expect(notice).to_be_visible()
        launched.append(int(re.findall(r"background process (\d+)", notice.inner_text())[0]))

        # The next stage's items appear in the queue on their own (it polls while one runs).
        try:
            expect(page.get_by_text("5 items match · 5 await review")).to_be_visible(
                timeout=STAGE_MS
            )
        except AssertionError:
            logs = "\n".join(p.read_text() for p in sorted((data / "logs").glob("*.log")))
            pytest.fail(f"the tasks stage never showed up in the queue; its log:\n{logs}")
        shot("queue")

        # Edit a field, see the diff, approve with edits.
        settle()
        page.get_by_role("button", name="Next item →").first.click()
        header = page.get_by_text(re.compile(rf"Task (\d+) · {PAPER} · tasks"))
        expect(header).to_be_visible()
        settle()
        edited_id = int(re.findall(r"Task (\d+)", header.inner_text())[0])
        question = page.get_by_label("Question", exact=True)
        question.fill("Does GateMix beat every baseline in each column of Table 1?")
        question.blur()
        approve = page.get_by_role("button", name="Approve with edits")
        expect(approve).to_be_visible()
        expect(page.get_by_text("{+beat every baseline").first).to_be_visible()
        shot("item", 1800)
        approve.click()
        expect(page.get_by_text(f"Approved with edits task {edited_id}")).to_be_visible()

        # The next item opened by itself; reject it with a reason.
        header = page.get_by_text(re.compile(rf"Task (\d+) · {PAPER} · tasks"))
        expect(header).not_to_have_text(re.compile(rf"Task {edited_id} "))
        settle()
        rejected_id = int(re.findall(r"Task (\d+)", header.inner_text())[0])
        reason = page.get_by_label("Reason (required to reject)")
        reason.fill("Same comparison as the ablation task; keep that one.")
        reason.press("Enter")
        settle()
        _click(page, "Reject")
        expect(page.get_by_text(f"Rejected task {rejected_id}")).to_be_visible()

        page.get_by_role("link", name="History").click()
        expect(page.get_by_role("heading", name="History")).to_be_visible()
        expect(page.get_by_text("Compare two revisions")).to_be_visible()
        expect(page.get_by_text("{+beat every baseline").first).to_be_visible()
        shot("history", 1300)
        page.get_by_role("link", name="Papers").click()
        expect(page.get_by_role("heading", name="Papers")).to_be_visible()
        shot("paper")

        # Signing out ends the sign-in for good: a reload shows the sign-in form.
        settle()
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_label("Username")).to_be_visible()
        page.reload()
        expect(page.get_by_label("Username")).to_be_visible()
        browser.close()

    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    runs = store.current_runs(PAPER)
    assert [runs[s].status for s in ("ingest", "parse", "mine")] == ["approved"] * 3
    assert runs["tasks"].status == "awaiting_review" and runs["tasks"].items == 5
    edited = store.require_task(edited_id)
    assert edited.status == "approved"
    assert store.fields(edited).question.startswith("Does GateMix beat every baseline")
    assert store.revisions(edited_id)[-1].author == "reviewer:rita"
    assert [(r.decision, r.reviewer) for r in store.reviews(task_id=edited_id)] == [
        ("approve_with_edits", "rita")
    ]
    rejected = store.require_task(rejected_id)
    assert rejected.status == "rejected"
    assert store.reviews(task_id=rejected_id)[-1].reason.startswith("Same comparison")
    assert {r.reviewer for r in store.reviews(PAPER)} == {"rita"}
    assert store.signed_in_user("") is None
    for name in ("queue", "checkpoint", "item", "history", "paper"):
        assert (shots / f"{name}.png").stat().st_size > 10_000
    assert time.monotonic() - started < 180


def test_two_reviewers_decide_only_what_they_saw(
    drafted_app: tuple[str, Path, list[int]], tmp_path: Path
) -> None:
    """Rita opens a task; Bob saves an edit of it; Rita's plain Approve is refused and her
    page moves to Bob's revision. Then Rita edits another task while Bob approves it: her
    page says so and keeps her text."""
    url, data, _ = drafted_app
    expect = sync_api.expect
    expect.set_options(timeout=STEP_MS)
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    first, second = [t.id for t in store.tasks(PAPER)][:2]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        rita = _signed_in(browser, url, "rita")
        bob = _signed_in(browser, url, "bob")

        _open(rita, url, first)
        _open(bob, url, first)
        question = bob.get_by_label("Question", exact=True)
        question.fill("Which baseline does GateMix beat on ETTh1, as Bob reads Table 1?")
        question.blur()
        expect(bob.get_by_role("button", name="Approve with edits")).to_be_visible()
        _settle(bob)
        bob.get_by_role("button", name="Save edits").click()
        expect(bob.get_by_text(re.compile(rf"Saved revision 2 of task {first}"))).to_be_visible()

        _settle(rita)
        _click(rita, "Approve")
        expect(rita.get_by_text(re.compile(r"after you opened revision 1"))).to_be_visible()
        _settle(rita)  # the form of revision 1 is replaced by revision 2's
        expect(rita.get_by_label("Question", exact=True)).to_have_value(
            re.compile("as Bob reads Table 1")
        )
        assert store.require_task(first).status == "awaiting_review"
        assert store.reviews(task_id=first) == []

        _open(rita, url, second)
        mine = rita.get_by_label("Question", exact=True)
        mine.fill("Rita's unsaved question about the ablation?")
        mine.blur()
        # her edit is held once the page knows it (the button says so), before Bob acts
        expect(rita.get_by_role("button", name="Approve with edits")).to_be_visible()
        _settle(rita)
        _open(bob, url, second)
        _click(bob, "Approve")
        expect(bob.get_by_text(f"Approved task {second}")).to_be_visible()
        rita.get_by_label("Reason (required to reject)").fill("a rerun")
        rita.get_by_label("Reason (required to reject)").press("Enter")
        expect(
            rita.get_by_text(re.compile(r"was approved by bob .* while you were editing"))
        ).to_be_visible()
        expect(rita.get_by_text("Rita's unsaved question about the ablation?")).to_be_visible()
        browser.close()
    assert [(r.reviewer, r.revision) for r in store.reviews(task_id=second)] == [("bob", 1)]


def _signed_in(browser: Any, url: str, name: str) -> Any:
    """A page of its own browser context (its own cookie jar), signed in as `name`."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(STEP_MS)
    page.goto(url)
    page.get_by_label("Username").fill(name)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    sync_api.expect(page.get_by_role("heading", name="Review queue")).to_be_visible()
    _settle(page)
    page.wait_for_function("() => document.cookie.includes('expcurate_sign_in=')")
    return page


def _open(page: Any, url: str, task_id: int | None) -> None:
    page.goto(f"{url}/item?item=task:{task_id}")
    sync_api.expect(page.get_by_text(re.compile(rf"Task {task_id} · "))).to_be_visible()
    _settle(page)


def _settle(page: Any) -> None:
    page.wait_for_function(IDLE_JS)


def _click(page: Any, name: str) -> None:
    """Click the one button called `name`. A key press or a blur starts a rerun a moment
    later, and until it ends the last run's button lingers beside the new one: wait for one."""
    button = page.get_by_role("button", name=name, exact=True)
    sync_api.expect(button).to_have_count(1)
    _settle(page)
    sync_api.expect(button).to_have_count(1)
    button.click()
