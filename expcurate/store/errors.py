"""What the store refuses, as exceptions a page or command turns into one line."""

from __future__ import annotations

from expcurate.store.rows import StageRun, TaskRevision


class StoreError(RuntimeError):
    pass


class ConcurrentEditError(StoreError):
    """Someone saved the task since the editor loaded it: the edit is refused, not merged."""

    def __init__(
        self, task_id: int, expected: int, current: TaskRevision, status: str = ""
    ) -> None:
        self.task_id = task_id
        self.expected = expected
        self.current = current
        self.status = status
        if current.number != expected:
            message = (
                f"task {task_id} was changed by {current.author} (revision {current.number}) "
                f"after you opened revision {expected}; reload it and apply your edit again"
            )
        else:  # same revision, but someone decided it meanwhile
            message = (
                f"task {task_id} was {status} by someone else after you opened revision "
                f"{expected}; reload it to see the decision"
            )
        super().__init__(message)


class LeaseHeld(StoreError):
    """Another live process is running this stage of this paper."""

    def __init__(self, run: StageRun, holder: str) -> None:
        self.run = run
        super().__init__(f"the {run.stage} stage of {run.paper_id} is being run by {holder}")


class LeaseLost(StoreError):
    """The run was declared interrupted (its owner looked gone) before it could finish."""
