"""Ctrl-C and SIGTERM: stop at once, leave the store recoverable, leave no children behind.

Prefect's flow engine swaps in its own SIGTERM handler while a flow runs and then waits for
the flow's worker threads, which may be in the middle of a stage nobody wants any more; the
flows install this handler again inside themselves for that reason.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from expcurate.curation.pipeline import interrupt_own_runs

_WANTED = threading.Event()  # set once a command asked for the handler


def stop_cleanly_on_signals() -> None:
    """Install the handler for SIGINT and SIGTERM (the CLI does, for every command)."""
    _WANTED.set()
    keep_stopping_cleanly()


def keep_stopping_cleanly() -> None:
    """Put the handler back where a library replaced it (a flow calls this first), if this
    process asked for it at all, and only from the main thread, the one signals reach."""
    if _WANTED.is_set() and threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, _stop)


def _stop(signum: int, _frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM: the stages this process runs are marked interrupted (the next
    command reruns them), its child processes (a temporary Prefect server, Streamlit) are
    ended, and the process exits at once with one line, instead of waiting for worker
    threads that would finish a stage nobody wants any more."""
    name = signal.Signals(signum).name
    marked = interrupt_own_runs(f"stopped by {name}")
    note = (
        f"; {marked} running stage(s) marked interrupted; run the same command again to resume"
        if marked
        else ""
    )
    print(f"stopped by {name}{note}", file=sys.stderr)
    _end_children()
    os._exit(128 + signum)


def _end_children() -> None:
    """SIGTERM to this process's children (Linux /proc; elsewhere they are left)."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[1] == me:
            with contextlib.suppress(OSError):
                os.kill(int(stat.parent.name), signal.SIGTERM)
