"""A parallel batch's worker processes, started as early as the command can.

A spawned worker spends its first second importing the pipeline. Started when the batch
command begins (before this process imports the pipeline itself, reads the paper list and
opens the store), that second overlaps this process's own start instead of following it,
and the worker takes its first paper about when this process does. This module imports
nothing heavy, so the command can call it first.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

_STARTED: dict[int, ProcessPoolExecutor] = {}


def start_workers(count: int) -> None:
    """Spawn `count` worker processes now, each importing the pipeline while it waits for
    a paper (`started_workers` hands them over)."""
    if count < 1 or count in _STARTED:
        return
    pool = worker_pool(count)
    for _ in range(count):  # each submit finds no idle worker and spawns one
        pool.submit(_import_pipeline)
    _STARTED[count] = pool


def worker_pool(count: int) -> ProcessPoolExecutor:
    """`count` spawned processes for a batch's papers, each keeping PyMuPDF's layout add-on
    out before it imports anything (`extractors.nolayout`), as the command's own process
    does: otherwise each loads an ONNX model it never uses, half a second of its first
    paper; and each leaving quickly. (A Dask cluster's workers are shared and left as they
    are.)"""
    return ProcessPoolExecutor(
        max_workers=count,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_starts,
    )


def _worker_starts() -> None:
    """A spawned worker keeps PyMuPDF's layout add-on out, and leaves without the
    interpreter's teardown once the pool ends it (`expcurate.leaving`): the command waits for
    its workers to exit, about 0.4 s after their last paper otherwise. (Its exit status, 0,
    is read by nobody: the pool reads its results, and a worker that dies mid-paper is
    killed, never leaving this way.)"""
    from expcurate.leaving import leave_quickly
    from extractors.nolayout import keep_layout_out

    leave_quickly()
    keep_layout_out()


def started_workers(count: int) -> ProcessPoolExecutor | None:
    """The `count` workers `start_workers` spawned, if it did (taken: at most once)."""
    return _STARTED.pop(count, None)


def _import_pipeline() -> None:
    """What a worker needs before its first paper, loaded while it waits for one."""
    import flows.papers  # noqa: F401  (the stages, the store, the extractors' entry points)
