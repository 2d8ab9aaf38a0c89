"""A throwaway PostgreSQL cluster for the tests: Debian's own binaries, a data folder in
/tmp, a free port on loopback, trust authentication, stopped when the session ends.

`.ci/install-postgres` installs the binaries; without them (or without the `psycopg` driver
from the `postgres` extra) `missing()` says why and the PostgreSQL variants are skipped.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "pg"  # the cluster's superuser


def binary(name: str) -> str | None:
    """`initdb`/`pg_ctl` on PATH, else from the newest of Debian's versioned folders."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return versions[-1] if versions else None


def missing() -> str:
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (the postgres extra; make test installs it)"
    if not (binary("initdb") and binary("pg_ctl")):
        return "PostgreSQL's binaries are not installed (.ci/install-postgres)"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """One cluster; `url(db)` names a database on it."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="expcurate-pg-"))
        self.data = self.base / "data"
        self.port = _free_port()
        # PostgreSQL refuses to run as root: as root, the cluster belongs to `nobody`.
        self.run_as = "nobody" if os.geteuid() == 0 else ""
        if self.run_as:
            entry = pwd.getpwnam(self.run_as)
            os.chown(self.base, entry.pw_uid, entry.pw_gid)

    def _run(self, *args: str) -> None:
        cmd = list(args)
        if self.run_as:
            cmd = ["runuser", "-u", self.run_as, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        initdb, pg_ctl = binary("initdb"), binary("pg_ctl")
        assert initdb and pg_ctl, missing()
        self._run(initdb, "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8")
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.base / "log")
        self._run(pg_ctl, "-D", str(self.data), "-l", log, "-o", options, "-w", "start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.execute("SELECT 1")
                return
            except Exception:
                time.sleep(0.2)
        raise RuntimeError(f"PostgreSQL did not come up; see {log}")

    def stop(self) -> None:
        pg_ctl = binary("pg_ctl")
        if pg_ctl and self.data.exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run(pg_ctl, "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user=USER, dbname="postgres", autocommit=True
        ) as conn:
            conn.execute(sql)
