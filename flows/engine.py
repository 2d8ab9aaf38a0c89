"""Which engine is at hand: a configured Prefect server, a running flow run.

Both questions are asked by every command, and importing Prefect to answer them costs about
a second. So each is answered without Prefect when nothing could make the answer yes: no
flow run exists in a process that has not imported Prefect, and no server is configured
when no Prefect setting is in sight (no variable naming an API or a profile, no profile
naming an API, no `prefect.toml`, `.env` or `pyproject.toml` of the working directory that
mentions Prefect). Otherwise Prefect itself is asked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def orchestrated() -> bool:
    """Do commands run as Prefect flow runs? `EXPCURATE_ENGINE=prefect` or `local` says so;
    by default (`auto`), when a Prefect server is configured."""
    from expcurate.settings import get_settings

    engine = get_settings().engine
    if engine != "auto":
        return engine == "prefect"
    return bool(prefect_server())


def prefect_server() -> str:
    """The Prefect API this process is configured for (PREFECT_API_URL, a profile, a test
    harness), or "" when there is none."""
    if "prefect" not in sys.modules and not _prefect_settings_in_sight():
        return ""
    from prefect.settings import get_current_settings

    return str(get_current_settings().api.url or "")


def in_flow_run() -> bool:
    """Is this code running inside a Prefect flow run?"""
    if "prefect" not in sys.modules:  # no flow run without Prefect
        return False
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


# the variables that can name a server, or the profile that does (the CLI sets others of
# Prefect's variables, its log level and the temporary server's timeout, for itself)
_NAMING = (
    "PREFECT_API_URL",
    "PREFECT_API_KEY",
    "PREFECT_CLOUD_API_URL",
    "PREFECT_PROFILE",
    "PREFECT_PROFILES_PATH",
)


def _prefect_settings_in_sight() -> bool:
    """Could any of the places Prefect reads its settings from name an API? (A yes may be
    wrong; then Prefect is asked. A no is always right.)"""
    if any(os.environ.get(name) for name in _NAMING):
        return True
    home = Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    try:
        if "API_URL" in (home / "profiles.toml").read_text(errors="replace"):
            return True
    except OSError:
        pass
    cwd = Path.cwd()
    if (cwd / "prefect.toml").exists():
        return True
    for name, mark in ((".env", "PREFECT_"), ("pyproject.toml", "tool.prefect")):
        try:
            if mark in (cwd / name).read_text(errors="replace"):
                return True
        except OSError:
            pass
    return False
