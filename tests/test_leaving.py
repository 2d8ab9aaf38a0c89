"""A process that leaves quickly (`expcurate.leaving`) leaves as it would have otherwise: the
same exit status, its output flushed, its threads joined, its stores closed (SQLite's
write-ahead log folded into the database file, so the file alone holds every row). Each
case runs in a real child process."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "child.py"
    script.write_text(
        "from expcurate.leaving import leaving_quickly\n"
        "with leaving_quickly():\n" + textwrap.indent(textwrap.dedent(body), "    "),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env=env
    )


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("print('done', end='')\n", 0),
        ("import sys\nprint('done', end='')\nsys.exit(3)\n", 3),
        ("import sys\nprint('done', end='')\nsys.exit('no such paper')\n", 1),
        ("print('done', end='')\nraise ValueError('a bug')\n", 1),
    ],
)
def test_the_exit_status_and_the_output_are_those_of_a_normal_exit(
    tmp_path: Path, body: str, status: int
) -> None:
    done = _run(tmp_path, body)
    assert done.returncode == status, done.stderr
    assert done.stdout == "done"  # written without a newline: flushed on the way out
    if "ValueError" in body:
        assert "ValueError: a bug" in done.stderr  # the traceback is still printed
    if "no such paper" in body:
        assert "no such paper" in done.stderr


def test_threads_are_joined_and_closers_run_before_the_process_leaves(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        """
        import threading, time
        from pathlib import Path
        from expcurate.leaving import before_leaving

        def late():
            time.sleep(0.3)
            Path("thread.txt").write_text("joined")

        threading.Thread(target=late).start()
        before_leaving(lambda: Path("closer.txt").write_text(Path("thread.txt").read_text()))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "closer.txt").read_text() == "joined"  # after the thread, not before


def test_a_store_left_quickly_holds_every_row_in_its_database_file(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        """
        from expcurate.store import Store

        store = Store("sqlite:///data/expcurate.db")
        for n in range(50):
            store.upsert_paper(f"paper-{n}", title="x" * 2000)
        """,
    )
    assert done.returncode == 0, done.stderr
    # the database file alone, copied as a user would copy it, without the -wal beside it
    copy = tmp_path / "copy.db"
    shutil.copy(tmp_path / "data" / "expcurate.db", copy)
    with sqlite3.connect(copy) as db:
        assert db.execute("SELECT count(*) FROM paper").fetchone()[0] == 50
