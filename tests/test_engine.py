"""Which engine a command uses, and what it costs to find out.

With no Prefect server in sight a command runs the flows' bodies in its own process and never
imports Prefect (about a second of every command's start); any setting that could name a
server sends the question to Prefect itself.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import sample_paper_list, tasks_in

from flows import engine

ROOT = Path(__file__).resolve().parents[1]


def test_a_batch_with_no_server_in_sight_never_imports_prefect_nor_the_layout_model(
    tmp_path: Path, sample_repo: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_"))}
    env |= {"HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    papers = sample_paper_list(tmp_path, sample_repo)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "expcurate", "batch", str(papers),
         "--auto-approve", "--workers", "2", "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and "2 papers, 0 failed" in done.stdout, done.stderr[-3000:]
    imported = re.findall(r"^import time:.*\|\s*(\S+)\s*$", done.stderr, re.M)
    assert "flows.run" in imported  # the batch ran in this process, and the log says so
    assert not [m for m in imported if m == "prefect" or m.startswith("prefect.")]
    # nor does any of its processes (the worker's import times are in the same stream) load
    # PyMuPDF's layout model (its add-on's import is refused, and listed all the same)
    assert "pymupdf" in imported
    assert not [m for m in imported if m.split(".")[0] == "onnxruntime"]
    assert len({t[0] for t in tasks_in(tmp_path / "data")}) == 2


@pytest.mark.parametrize(
    "where",
    ["env", "profile", "home", "prefect.toml", ".env", "pyproject.toml"],
)
def test_any_setting_that_could_name_a_server_is_asked_of_prefect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    (home / ".prefect").mkdir(parents=True)
    cwd.mkdir()
    for name in list(os.environ):
        if name.startswith("PREFECT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    (home / ".prefect" / "profiles.toml").write_text('active = "local"\n[profiles.local]\n')
    (cwd / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    # the variables the CLI sets for itself name no server
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "WARNING")
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")
    assert not engine._prefect_settings_in_sight()
    if where == "env":
        monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4200/api")
    elif where == "profile":
        (home / ".prefect" / "profiles.toml").write_text(
            'active = "team"\n[profiles.team]\nPREFECT_API_URL = "http://127.0.0.1:4200/api"\n'
        )
    elif where == "home":  # profiles kept elsewhere
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "profiles.toml").write_text(
            '[profiles.team]\nPREFECT_API_URL = "http://127.0.0.1:4200/api"\n'
        )
        monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "elsewhere"))
    elif where == "prefect.toml":
        (cwd / "prefect.toml").write_text('[api]\nurl = "http://127.0.0.1:4200/api"\n')
    elif where == ".env":
        (cwd / ".env").write_text("PREFECT_API_URL=http://127.0.0.1:4200/api\n")
    else:
        (cwd / "pyproject.toml").write_text('[tool.prefect.api]\nurl = "http://127.0.0.1:4200"\n')
    assert engine._prefect_settings_in_sight()


def test_workers_started_early_are_handed_over_once() -> None:
    from flows.workers import start_workers, started_workers

    assert started_workers(1) is None  # none started: the batch spawns its own
    start_workers(1)
    pool = started_workers(1)
    assert pool is not None and started_workers(1) is None
    with pool:  # the spawned worker has imported the pipeline and runs what it is given
        assert pool.submit(os.getpid).result(timeout=60) != os.getpid()
