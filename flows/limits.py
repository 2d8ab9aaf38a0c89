"""Concurrency limits by kind of work: stages that compute apart from stages that call a model.

A machine's cores and a model provider's rate limit run out for different reasons, so they
are bounded apart, whatever the number of papers or workers:

- `cpu` slots (`EXPCURATE_CPU_SLOTS`, default: the machine's cores) for parse, mine, package,
  and the tasks and setup stages when their model is the offline `heuristic`;
- `llm` slots (`EXPCURATE_LLM_SLOTS`, default 4) for the tasks and setup stages when they call
  a model.

Ingest (downloads, clones) takes no slot. A stage holds its slot while it runs and gives it
back when it ends, however it ends.

By default (`EXPCURATE_SLOTS_SCOPE=machine`) the slots are lock files under the data dir,
shared by every process on this machine, whichever engine runs the flows; the operating system
frees a killed process's slot at once. With `team`, inside Prefect flow runs they are Prefect
global concurrency limits named `expcurate-cpu` and `expcurate-llm`, shared by every worker of
the server and shown in its UI (`expcurate deploy` sets them from the settings; a run creates
a missing one); a killed worker's slot comes back only when its lease expires
(`EXPCURATE_SLOT_LEASE_S`), since nothing else can tell the server it died.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Literal

from expcurate.records import Stage
from expcurate.settings import Settings
from flows.engine import in_flow_run

Kind = Literal["cpu", "llm"]
KINDS: tuple[Kind, ...] = ("cpu", "llm")
POLL_S = 0.05


def limit_name(kind: Kind) -> str:
    """The Prefect global concurrency limit of a kind of slot."""
    return f"expcurate-{kind}"


def slots(settings: Settings, kind: Kind) -> int:
    """How many stages of a kind may run at once (0: no limit)."""
    if kind == "llm":
        return settings.llm_slots
    if settings.cpu_slots is None:
        return os.cpu_count() or 1
    return settings.cpu_slots


def stage_kind(settings: Settings, stage: Stage) -> Kind | None:
    """The slot a stage takes: None for ingest, which waits on the network and the disk."""
    if stage == Stage.ingest:
        return None
    if stage in (Stage.tasks, Stage.setup):
        model = settings.stage_model("tasks" if stage == Stage.tasks else "setup")
        return "cpu" if model == "heuristic" else "llm"
    return "cpu"


@contextmanager
def stage_slot(settings: Settings, stage: Stage) -> Iterator[None]:
    """Hold a slot of the stage's kind while the body runs: this machine's lock files, or
    Prefect's limit inside a flow run when the slots are the team's."""
    kind = stage_kind(settings, stage)
    if kind is None or slots(settings, kind) <= 0:
        yield
        return
    if settings.slots_scope == "team" and in_flow_run():
        with prefect_slot(settings, kind):
            yield
        return
    with file_slot(settings.resolved_data_dir() / "slots", kind, slots(settings, kind)):
        yield


@contextmanager
def file_slot(folder: Path, kind: str, count: int) -> Iterator[None]:
    """One of `count` slots named `kind`, as an exclusive lock on one of `count` files: held
    until the body ends or the process dies, waited for while all are taken."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    while True:
        for i in range(count):
            handle = (folder / f"{kind}-{i}.lock").open("a")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
                handle.close()
            return
        time.sleep(POLL_S)


@contextmanager
def prefect_slot(settings: Settings, kind: Kind) -> Iterator[None]:
    """One slot of the kind's Prefect global concurrency limit, created from the settings
    when the server has none yet."""
    from prefect.concurrency.sync import concurrency

    ensure_limits(settings, only=(kind,))
    with concurrency(limit_name(kind), occupy=1, strict=True, lease_duration=settings.slot_lease_s):
        yield


def ensure_limits(
    settings: Settings, *, update: bool = False, only: tuple[Kind, ...] = KINDS
) -> dict[str, int]:
    """The server's global concurrency limits for the kinds, created from the settings when
    missing (set to the settings' values too when `update`); returns each limit's value.
    A limit of 0 in the settings leaves the kind unlimited (an inactive limit)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import (
        GlobalConcurrencyLimitCreate,
        GlobalConcurrencyLimitUpdate,
    )
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    values = {}
    with get_client(sync_client=True) as client:
        for kind in only:
            name = limit_name(kind)
            wanted = slots(settings, kind)
            try:
                found = client.read_global_concurrency_limit_by_name(name)
            except ObjectNotFound:
                with suppress(ObjectAlreadyExists):  # made meanwhile by a stage beside this one
                    client.create_global_concurrency_limit(
                        GlobalConcurrencyLimitCreate(
                            name=name, limit=max(wanted, 1), active=wanted > 0
                        )
                    )
                values[name] = wanted
            else:
                if update and (found.limit != wanted or found.active != (wanted > 0)):
                    client.update_global_concurrency_limit(
                        name,
                        GlobalConcurrencyLimitUpdate(limit=max(wanted, 1), active=wanted > 0),
                    )
                    values[name] = wanted
                else:
                    values[name] = found.limit if found.active else 0
    return values
