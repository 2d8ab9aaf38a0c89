"""Background launches: a detached `expcurate advance` whose end is reaped, not left a zombie."""

from __future__ import annotations

import re
import time
from pathlib import Path

from expcurate.settings import Settings
from flows.launcher import start_next


def _state(pid: int) -> str:
    """The process's state letter from /proc ("Z" for a zombie), or "" once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone between open and read
        return ""
    return stat.rsplit(")", 1)[1].split()[0]


def test_a_finished_background_stage_is_reaped(settings: Settings) -> None:
    started = start_next("no-such-paper", settings, mode="background")
    pid = int(re.findall(r"background process (\d+)", started)[0])
    log = next((settings.resolved_data_dir() / "logs").glob("advance-no-such-paper-*.log"))
    deadline = time.monotonic() + 120
    while _state(pid) not in ("", "Z") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _state(pid) in ("", "Z"), "the stage process did not finish"
    reaped_by = time.monotonic() + 10  # the reaper thread's wait() returns right after the exit
    while _state(pid) == "Z" and time.monotonic() < reaped_by:
        time.sleep(0.1)
    assert _state(pid) == "", "the finished stage process was left a zombie"
    assert log.read_text(errors="replace").strip(), "the stage wrote nothing to its log"
