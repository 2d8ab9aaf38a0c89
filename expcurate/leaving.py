"""Leave a process quickly once its work is done and closed.

A finished command, or a batch's worker process, spends about 0.4 s on its way out freeing the
objects of every module it imported. Nobody needs that: its rows are committed and its files
written. `leave_quickly()`, called before anything else registers an exit handler, registers
one that Python therefore runs after all the others (last registered, first run), once the
threads were joined: it runs what the process asked to run on leaving (`before_leaving`: the
store closes its connections there, and SQLite folds its write-ahead log into the database
file as the last one closes), flushes the logs and the standard streams, and ends the process
with its exit status (`exiting_with`) without the teardown. A process that is killed never
gets here, and loses nothing by it either: every write is committed as it is made.

This module imports nothing heavy, so that a process can call it first.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator

_closers: list[Callable[[], None]] = []
_state = {"registered": False, "status": 0}


def leave_quickly() -> None:
    """End this process without the interpreter's teardown when it exits (once registered,
    for good; call it first thing in a process's entry point, never in a library's)."""
    if not _state["registered"]:
        atexit.register(_leave)
        _state["registered"] = True


@contextlib.contextmanager
def leaving_quickly() -> Iterator[None]:
    """A process's main body, after which it leaves quickly (`leave_quickly`) with the status
    it leaves with: a `SystemExit`'s code, 130 after Ctrl-C, 1 after an uncaught exception
    (whose traceback Python prints first), else 0."""
    leave_quickly()
    try:
        yield
    except SystemExit as exc:
        exiting_with(exc.code)
        raise
    except KeyboardInterrupt:
        exiting_with(130)
        raise
    except BaseException:
        exiting_with(1)
        raise
    exiting_with(0)


def exiting_with(code: object) -> None:
    """The status the process is leaving with, as `SystemExit`'s code gives it: None is 0, a
    number itself, anything else (a message Python has printed) 1."""
    _state["status"] = code if isinstance(code, int) else 0 if code is None else 1


def before_leaving(closer: Callable[[], None]) -> None:
    """Run `closer` as the process leaves quickly (closing what the teardown would have)."""
    _closers.append(closer)


def _leave() -> None:
    for closer in _closers:
        try:
            closer()
        except Exception as exc:  # leaving anyway: say so rather than lose the status
            print(f"expcurate: while leaving: {type(exc).__name__}: {exc}", file=sys.stderr)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed, or a pipe nobody reads
            stream.flush()
    os._exit(int(_state["status"]))
