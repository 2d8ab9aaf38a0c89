"""Shared fixtures: an isolated data dir per test, Prefect's harness once per session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")

import pytest

from expcurate.settings import Settings, override_settings, set_settings
from expcurate.store import Store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/pg.py, tests/local_model.py
SAMPLE = ROOT / "data" / "sample"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test sees the developer's EXPCURATE_* settings or leaks its own."""
    for name in list(os.environ):
        if name.startswith("EXPCURATE_"):
            monkeypatch.delenv(name)
    set_settings(None)
    yield
    set_settings(None)


DATABASES = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked `databases` run once per store: SQLite and a real PostgreSQL."""
    if metafunc.definition.get_closest_marker("databases") and "db_backend" in (
        metafunc.fixturenames
    ):
        metafunc.parametrize("db_backend", DATABASES, indirect=True)


@pytest.fixture
def db_backend(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[object]:
    """One throwaway PostgreSQL cluster on loopback for the session (see tests/pg.py)."""
    import pg

    why = pg.missing()
    if why:
        pytest.skip(why)
    cluster = pg.Cluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


_DATABASE_NUMBERS = iter(range(1, 1_000_000))


@pytest.fixture
def db_url(db_backend: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """'' (the SQLite file in the data dir) or a fresh PostgreSQL database for this test."""
    if db_backend == "sqlite":
        yield ""
        return
    cluster = request.getfixturevalue("postgres_cluster")
    name = f"t{os.getpid()}_{next(_DATABASE_NUMBERS)}"
    cluster.execute(f"CREATE DATABASE {name}")
    try:
        yield cluster.url(name)
    finally:
        cluster.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def settings(tmp_path: Path, db_url: str) -> Iterator[Settings]:
    with override_settings(data_dir=tmp_path / "data", db_url=db_url, model="heuristic") as s:
        yield s


@pytest.fixture
def store(settings: Settings) -> Store:
    return Store(settings.database_url())


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[None]:
    """Prefect's ephemeral API, started once: it takes seconds to come up."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="session")
def sample_pdf() -> Path:
    return SAMPLE / "paper.pdf"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """The sample repository as a real git repository with one commit."""
    return make_sample_repo(tmp_path / "gatemix-repo")


def make_sample_repo(dest: Path) -> Path:
    """Copy the sample repository to `dest` and commit it there."""
    shutil.copytree(SAMPLE / "repo", dest)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "commit", "-q", "-m", "sample"],
    ):
        subprocess.run(cmd, cwd=dest, check=True, env=env)
    return dest


# ------------------------------------------------------------------ helpers tests share


def run_cli(args: list[str], data: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`expcurate ARGS --data-dir DATA` as a user runs it, with no Prefect API configured;
    a temporary Prefect server, if one were started, would fail at once (1 s to start)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_API"))}
    clean |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True",
              "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "1", **env}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "expcurate", *args, "--data-dir", str(data)],
        capture_output=True, text=True, env=clean, cwd=ROOT, timeout=300,
    )  # fmt: skip


def tasks_in(data: Path) -> list[tuple[str, str, str, str]]:
    """Every task of the store in DATA: (paper, key, status, fields as JSON), sorted."""
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    return sorted(
        (t.paper_id, t.key, t.status, store.fields(t).model_dump_json()) for t in store.tasks()
    )


def sample_paper_list(folder: Path, repo: Path, ids: tuple[str, ...] = ("one", "two")) -> Path:
    """A paper list of the sample paper under each id, with `repo` as its code."""
    import json

    papers = folder / "papers.jsonl"
    pdf = SAMPLE / "paper.pdf"
    papers.write_text(
        "".join(
            json.dumps({"id": pid, "pdf_url": str(pdf), "code_url": str(repo)}) + "\n"
            for pid in ids
        )
    )
    return papers


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 30 s."""
    import signal

    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
