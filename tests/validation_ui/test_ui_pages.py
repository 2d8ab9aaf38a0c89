"""Each page under Streamlit's AppTest: signed out, signed in, and per role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import PAPER, PASSWORD, ROOT, simple_task

from expcurate.records import RunStatus, Stage, StageResult, ToolCall
from expcurate.store import Store
from flows import launcher

APP = ROOT / "validation_ui" / "app.py"
ROLES = ("curator", "reviewer", "admin")
PAGES = ("queue", "item", "paper", "history", "publish")


@pytest.fixture(autouse=True)
def launches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replace the real launcher (a background process) with a recorder, in every test."""
    started: list[str] = []

    def fake(paper_id: str, settings: Any, mode: str | None = None) -> str:
        started.append(paper_id)
        return "test launcher"

    monkeypatch.setattr(launcher, "start_next", fake)
    return started


def _users(store: Store) -> None:
    for role in ROLES:
        if store.get_user(role) is None:
            store.add_user(role, PASSWORD, role)


def _app(store: Store, role: str | None = "reviewer") -> AppTest:
    _users(store)
    at = AppTest.from_file(str(APP), default_timeout=30)
    if role is not None:  # signed in as the app signs people in: a live sign-in token
        at.session_state["expcurate_user"] = {
            "username": role,
            "token": store.open_sign_in(role, 1),
        }
    return at.run()


def _open(at: AppTest, page: str, **params: str) -> AppTest:
    """Open a page as a visitor following a link would, then let the app navigate.

    AppTest keeps requesting the page given to `switch_page` on every later run, which would
    hide the app's own `st.switch_page` moves (after a decision, to the next item); clearing
    the request after the first run makes later runs stay where the app went.
    """
    at.query_params.update(params)
    at.switch_page(f"views/{page}.py").run()
    at._page_hash = ""
    return at


def _text(at: AppTest) -> str:
    """Everything the page shows as text, to check what a visitor can (not) see."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "text", "info",
                 "warning", "error", "success", "code"):  # fmt: skip
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(w.value) for w in at.text_area] + [str(b.label) for b in at.button]
    return "\n".join(parts)


def test_signed_out_visitor_sees_only_the_sign_in_form(drafted: Store) -> None:
    at = _app(drafted, role=None)
    assert not at.exception
    assert [t.value for t in at.title] == ["ExpCurate review"]
    assert [w.label for w in at.text_input] == ["Username", "Password"]
    question = drafted.fields(drafted.tasks(PAPER)[0]).question
    assert PAPER not in _text(at) and question not in _text(at)
    for page in PAGES:  # no other page is even registered
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(f"views/{page}.py")


def test_wrong_password_is_refused_and_right_one_signs_in(drafted: Store) -> None:
    at = _app(drafted, role=None)
    at.text_input[0].set_value("reviewer")
    at.text_input[1].set_value("not the password")
    at.button[0].click().run()
    assert [e.value for e in at.error] == ["Wrong username or password."]
    assert "expcurate_user" not in at.session_state
    at.text_input[1].set_value(PASSWORD)
    at.button[0].click().run()
    assert [t.value for t in at.title] == ["Review queue"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["tasks"] == "5" and metrics["ingest"] == "0"


def test_too_many_wrong_passwords_lock_the_account_even_for_the_right_one(
    drafted: Store,
) -> None:
    at = _app(drafted, role=None)
    at.text_input[0].set_value("reviewer")
    for _ in range(5):
        at.text_input[1].set_value("not the password")
        at.button[0].click().run()
    at.text_input[1].set_value(PASSWORD)
    at.button[0].click().run()
    (error,) = [e.value for e in at.error]
    assert error.startswith("Too many wrong passwords for 'reviewer': try again in 15 minute")
    assert "expcurate_user" not in at.session_state


def test_signing_out_ends_the_other_tabs_and_a_password_reset_every_sign_in(
    drafted: Store,
) -> None:
    """Two tabs share one sign-in: signing out in one signs the other out at its next click;
    a password reset ends every sign-in made with the old password."""
    one, two = _app(drafted), _app(drafted)
    two.session_state["expcurate_user"] = dict(one.session_state["expcurate_user"])
    two.run()
    assert [t.value for t in two.title] == ["Review queue"]
    one.button(key="sign-out").click().run()
    two.run()
    assert [t.value for t in two.title] == ["ExpCurate review"]
    three = _app(drafted)
    assert [t.value for t in three.title] == ["Review queue"]
    drafted.add_user("reviewer", "a brand new password", "reviewer", replace=True)
    three.run()
    assert [t.value for t in three.title] == ["ExpCurate review"]


def test_a_page_run_without_a_user_shows_nothing(drafted: Store) -> None:
    """Pages check the session themselves too, in case one is reached without the gate."""
    at = _app(drafted)
    at.session_state["expcurate_user"] = {"username": "ghost"}  # not in the store
    at.run()
    assert [t.value for t in at.title] == ["ExpCurate review"]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_for_every_role(drafted: Store, role: str, page: str) -> None:
    at = _open(_app(drafted, role), page)
    assert not at.exception, at.exception
    labels = [b.label for b in at.button]
    reviewing = role in ("reviewer", "admin")
    if page == "item":
        assert ("Approve" in labels) is reviewing
        assert ("Reject" in labels) is reviewing
        assert len(at.text_area) > 0 if reviewing else len(at.text_area) == 0
    if page == "publish":
        assert (len(at.get("form")) == 1) is (role != "reviewer")


def test_users_page_is_only_for_admins(drafted: Store) -> None:
    at = _open(_app(drafted, "admin"), "users")
    assert [t.value for t in at.title] == ["Users"]
    for role in ("curator", "reviewer"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            _app(drafted, role).switch_page("views/users.py")


def test_admin_adds_a_user_in_the_app(drafted: Store) -> None:
    at = _open(_app(drafted, "admin"), "users")
    at.text_input[0].set_value("newbie")
    at.selectbox[0].set_value("curator")
    at.text_input[1].set_value("a long password")
    at.text_input[2].set_value("a long password")
    at.button(key="save-user").click().run()
    assert not at.exception
    user = drafted.verify_user("newbie", "a long password")
    assert user is not None and user.role == "curator"


def _first_task(store: Store) -> int:
    tid = store.tasks(PAPER)[0].id
    assert tid is not None
    return tid


def _question(at: AppTest, tid: int, base: int = 1) -> Any:
    return at.text_area(key=f"t{tid}-r{base}-question")


def test_edit_and_approve_records_the_revision_and_opens_the_next_item(
    drafted: Store, launches: list[str]
) -> None:
    tid = _first_task(drafted)
    at = _open(_app(drafted), "item", item=f"task:{tid}")
    _question(at, tid).set_value("Is GateMix better than every baseline of Table 1?").run()
    assert at.button(key=f"approve-{tid}").label == "Approve with edits"
    assert any("[-How does" in c.value for c in at.code)  # the diff against the machine draft
    at.button(key=f"approve-{tid}").click().run()
    assert not at.exception
    assert at.success[0].value.startswith(f"Approved with edits task {tid} (revision 2)")
    fields = drafted.fields(drafted.require_task(tid))
    assert fields.question == "Is GateMix better than every baseline of Table 1?"
    assert drafted.revisions(tid)[-1].author == "reviewer:reviewer"
    assert drafted.reviews(task_id=tid)[-1].decision == "approve_with_edits"
    assert at.session_state["expcurate_item"] == f"task:{drafted.tasks(PAPER)[1].id}"
    assert launches == []  # eight tasks are still open


def test_an_edit_survives_reruns_and_a_visit_to_another_page(drafted: Store) -> None:
    tid = _first_task(drafted)
    at = _open(_app(drafted), "item", item=f"task:{tid}")
    _question(at, tid).set_value("Edited but not saved?").run()
    at.run()
    _open(at, "queue")
    assert [t.value for t in at.title] == ["Review queue"]
    _open(at, "item", item=f"task:{tid}")
    assert _question(at, tid).value == "Edited but not saved?"
    assert len(drafted.revisions(tid)) == 1  # nothing was written behind the reviewer's back


def test_concurrent_save_is_refused_with_the_other_version_shown(drafted: Store) -> None:
    tid = _first_task(drafted)
    at = _open(_app(drafted), "item", item=f"task:{tid}")
    _question(at, tid).set_value("My version?").run()
    theirs = drafted.fields(drafted.require_task(tid)).model_copy(update={"method": "Theirs."})
    drafted.edit_task(tid, theirs, reviewer="omar", expected_head=1)
    at.button(key=f"save-{tid}").click().run()
    errors = " ".join(e.value for e in at.error)
    assert "Not saved: omar saved revision 2" in errors
    assert "Revision 2 by reviewer:omar" in errors
    assert drafted.fields(drafted.require_task(tid)).method == "Theirs."
    assert _question(at, tid).value == "My version?"  # the refused edit is still there
    at.button(key=f"rebase-{tid}").click().run()
    assert _question(at, tid, base=2).value == "My version?"
    at.button(key=f"save-{tid}").click().run()
    fields = drafted.fields(drafted.require_task(tid))
    assert (fields.question, fields.method) == ("My version?", "Theirs.")


def test_reject_without_a_reason_is_refused(drafted: Store) -> None:
    tid = _first_task(drafted)
    at = _open(_app(drafted), "item", item=f"task:{tid}")
    at.button(key=f"reject-{tid}").click().run()
    assert "say why in the reason box" in " ".join(e.value for e in at.error)
    at.text_input(key=f"reason-{tid}").set_value("Table 1 is a duplicate of Table 3")
    at.button(key=f"reject-{tid}").click().run()
    assert drafted.require_task(tid).status == "rejected"
    assert drafted.reviews(task_id=tid)[-1].reason == "Table 1 is a duplicate of Table 3"


def test_invalid_edit_is_not_saved_and_says_why(drafted: Store) -> None:
    tid = _first_task(drafted)
    at = _open(_app(drafted), "item", item=f"task:{tid}")
    _question(at, tid).set_value("").run()
    assert "question: question must not be empty" in [e.value for e in at.error]
    at.button(key=f"approve-{tid}").click().run()
    assert "Not saved: fix the problems listed above first." in [e.value for e in at.error]
    assert drafted.require_task(tid).status == "awaiting_review"


def test_approving_the_last_checkpoint_starts_the_next_stage(
    phase1: Store, launches: list[str]
) -> None:
    at = _open(_app(phase1), "queue")
    assert {m.label: m.value for m in at.metric}["parse"] == "1"
    at.button(key="next-item").click().run()
    for stage in ("ingest", "parse", "mine"):
        assert at.subheader[0].value == f"{stage} checkpoint · {PAPER}"
        run_id = phase1.current_runs(PAPER)[stage].id
        at.button(key=f"run-approve-{run_id}").click().run()
        assert not at.exception
    assert launches == [PAPER]
    messages = " ".join(s.value for s in at.success)
    assert f"last open item of mine for {PAPER}: started tasks (test launcher)" in messages
    assert [t.value for t in at.title] == ["Review queue"]  # nothing else to review yet


def test_curator_retries_a_failed_stage(drafted: Store, launches: list[str]) -> None:
    tasks_run = drafted.current_runs(PAPER)["tasks"].id
    assert tasks_run is not None
    drafted.set_run_status(tasks_run, RunStatus.approved)
    run = drafted.start_run(PAPER, "setup")
    assert run.id is not None
    result = StageResult()
    result.add_error("setup", "agent", "the agent crashed")
    drafted.finish_run(run.id, result, status="failed")
    reviewer = _open(_app(drafted, "reviewer"), "paper", paper=PAPER)
    assert "agent: the agent crashed" in [e.value for e in reviewer.error]
    assert not any(b.label.startswith("Retry") for b in reviewer.button)
    at = _open(_app(drafted, "curator"), "paper", paper=PAPER)
    at.button(key="retry-setup").click().run()
    assert launches == [PAPER]
    assert f"Started setup for {PAPER} (test launcher)." in [s.value for s in at.success]
    assert Stage.setup.value not in drafted.current_runs(PAPER)


def test_history_lists_revisions_and_diffs_any_two(drafted: Store) -> None:
    tid = _first_task(drafted)
    fields = drafted.fields(drafted.require_task(tid))
    drafted.edit_task(tid, fields.model_copy(update={"method": "New method."}), reviewer="omar",
                      expected_head=1)  # fmt: skip
    at = _open(_app(drafted), "history", task=str(tid))
    revisions = at.dataframe[0].value
    assert list(revisions["author"]) == ["machine:heuristic", "reviewer:omar"]
    assert any(c.value.endswith("{+New method.+}") for c in at.code)


def test_publish_builds_a_release_and_offers_the_zip(drafted: Store, tmp_path: Path) -> None:
    for n in range(2):
        drafted.put_machine_task(PAPER, simple_task(f"pkg{n}"), stage="package",
                                 author="machine:heuristic", status="approved")  # fmt: skip
    at = _open(_app(drafted, "curator"), "publish")
    at.text_input(key="rel-name").set_value("r1")
    at.get("form")[0].form_submit_button[0].click()  # type: ignore[attr-defined]
    at.run()
    assert not at.exception
    (release,) = drafted.releases()
    assert (release.name, release.task_count) == ("r1", 2)
    assert "Release r1: 1 papers, 2 tasks" in at.success[0].value
    assert len(at.get("download_button")) == 1


def test_setup_item_shows_cited_code_and_the_agent_trace(drafted: Store) -> None:
    fields = drafted.fields(drafted.tasks(PAPER)[0]).model_copy(
        update={
            "requirements": ["Step 1: Parse the arguments (train.py:25-27)"],
            "source": ["train.py"],
            "trace": [ToolCall(tool="grep", args={"pattern": "argparse"}, result="train.py:23")],
        }
    )
    task = drafted.put_machine_task(PAPER, fields, stage="setup", author="machine:heuristic")
    at = _open(_app(drafted), "item", item=f"task:{task.id}")
    assert not at.exception
    code = at.code[0]
    assert code.language == "python"
    assert [line[:3] for line in code.value.splitlines()] == [
        "23 ",
        "24 ",
        "25▶",
        "26▶",
        "27▶",
        "28 ",
        "29 ",
    ]
    at.segmented_control(key=f"evidence-{task.id}").set_value("Agent trace").run()
    assert "1. grep(pattern='argparse')" in [e.label for e in at.expander]
    assert [c.value for c in at.code if c.value == "train.py:23"]


def test_a_stage_a_killed_process_left_running_is_recovered_on_the_paper_page(
    drafted: Store, launches: list[str]
) -> None:
    import subprocess
    import sys

    from expcurate.store.lease import HOST

    tasks_run = drafted.current_runs(PAPER)["tasks"].id
    assert tasks_run is not None
    drafted.set_run_status(tasks_run, RunStatus.approved)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    drafted.start_run(PAPER, "setup", owner=f"{HOST}:{gone.pid}:dead")
    at = _open(_app(drafted, "curator"), "paper", paper=PAPER)
    assert any("the setup run was interrupted" in w.value for w in at.warning)
    assert "Due and not running: setup." in [i.value for i in at.info]
    at.button(key="start-due").click().run()
    assert launches == [PAPER]


def test_a_link_to_an_item_that_does_not_exist_says_so(drafted: Store) -> None:
    at = _open(_app(drafted), "item", item="task:300")
    assert "There is no task 300 in this store." in _text(at)
    assert "Nothing awaits review" not in _text(at)


def test_task_fields_read_only_are_text_not_markdown(drafted: Store) -> None:
    """A question holding "# Heading" shows as that text to a viewer, not as a heading."""
    tid = drafted.tasks(PAPER)[0].id
    assert tid is not None
    fields = drafted.fields(drafted.require_task(tid)).model_copy(
        update={"question": "# Does X beat Y?"}
    )
    drafted.edit_task(tid, fields, reviewer="ann", expected_head=1)
    at = _open(_app(drafted, "curator"), "item", item=f"task:{tid}")
    assert any(c.value == "# Does X beat Y?" for c in at.code)
    assert not any("Does X beat Y?" in h.value for h in at.markdown if h.value.startswith("#"))


def test_a_merge_conflict_shows_both_values_side_by_side(drafted: Store) -> None:
    """The item page splits a flag holding two versions (`--- label` lines) into columns."""
    from expcurate.records import Flag, Severity
    from validation_ui.evidence import two_sides

    tid = _first_task(drafted)
    message = (
        "method: a reviewer edited it and the new machine output changed it too; the "
        "reviewer's value is kept. Decide between them:\n--- reviewer\nThe reviewer's method."
        "\n--- machine, new\nThe machine's method."
    )
    lead, sides = two_sides(message)
    assert lead.endswith("Decide between them:")
    assert sides == [
        ("reviewer", "The reviewer's method."),
        ("machine, new", "The machine's method."),
    ]
    assert two_sides("one line, no versions") == ("one line, no versions", [])
    drafted.set_flags(tid, [Flag(check="merge_conflict", severity=Severity.error, message=message)])
    at = _open(_app(drafted), "item", item=f"task:{tid}")
    assert not at.exception
    assert any("merge_conflict" in e.value for e in at.error), [e.value for e in at.error]
    codes = [c.value for c in at.code]
    assert "The reviewer's method." in codes and "The machine's method." in codes
    assert {"reviewer", "machine, new"} <= {c.value for c in at.caption}
