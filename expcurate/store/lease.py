"""Leases on stage runs: which process runs a stage, and whether it still can.

A running stage run names its owner (`host:pid:token`, the token told apart from a later
process that got the same pid) and carries a heartbeat the owner renews while it works. A run
whose owner is gone (a dead process on this host, or no heartbeat from another host for a
while) can never finish: the pipeline marks it interrupted and runs the stage again.
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import UTC, datetime
from pathlib import Path

from expcurate.records import RunStatus
from expcurate.store.rows import StageRun, utcnow

HOST = socket.gethostname()
TOKEN = uuid.uuid4().hex[:8]  # this process, not another one that reuses its pid later
HEARTBEAT_S = 10.0  # how often a running stage says it is alive


def this_process() -> str:
    """The owner string of this process."""
    return f"{HOST}:{os.getpid()}:{TOKEN}"


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were written in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _alive(pid: int) -> bool:
    """Is process `pid` on this host running (a zombie, dead but not yet reaped, is not)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): the signal test is all there is
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def owner_gone(run: StageRun, stale_after_s: float, now: datetime | None = None) -> str | None:
    """Why the running `run` can no longer be finished by its owner, or None while it can."""
    if run.status != RunStatus.running:
        return None
    host, _, rest = run.owner.partition(":")
    pid_text, _, token = rest.partition(":")
    token = token.split(":")[0]
    if host == HOST and pid_text.isdigit():
        pid = int(pid_text)
        if pid == os.getpid():
            return None if token == TOKEN else f"process {pid} was restarted"
        if not _alive(pid):
            return f"process {pid} on {host} is gone"
    last = _aware(run.heartbeat_at or run.started_at)
    age = ((now or utcnow()) - last).total_seconds()
    if age > stale_after_s:
        who = run.owner or "an owner it did not record"
        return f"no heartbeat from {who} for {age:.0f} s"
    return None


def describe(run: StageRun) -> str:
    """Who holds a running run's lease and since when, for a message."""
    host, _, rest = run.owner.partition(":")
    pid = rest.partition(":")[0] or "?"
    since = _aware(run.started_at).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"process {pid} on {host or '?'} since {since}"
