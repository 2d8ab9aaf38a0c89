"""Start the next stage after a checkpoint closes, without anyone waiting on it.

`inline` runs it in this process (scripts, tests); `background` starts a detached
`expcurate advance` process with its output in `data/logs/`; `prefect` asks a Prefect server
to run the `advance-paper` deployment (`expcurate serve` creates it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import UTC, datetime

from expcurate.settings import Settings
from flows.engine import prefect_server

DEPLOYMENT = "advance-paper/advance"


def start_next(paper_id: str, settings: Settings, mode: str | None = None) -> str:
    """Start `advance_paper` for the paper; returns how it was started, for the user."""
    mode = mode or settings.launcher
    if mode == "prefect" and prefect_server():
        from prefect.deployments import run_deployment

        run = run_deployment(DEPLOYMENT, parameters={"paper_id": paper_id}, timeout=0)
        return f"Prefect flow run {getattr(run, 'id', '?')}"
    if mode == "inline":
        from flows.run import advance

        advance(paper_id)  # a failed paper is in the store too
        return "finished"
    logs = settings.resolved_data_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    log_path = logs / f"advance-{paper_id}-{stamp}.log"
    env = {
        **os.environ,
        "EXPCURATE_DATA_DIR": str(settings.resolved_data_dir()),
        "EXPCURATE_DB_URL": settings.database_url(),
        "EXPCURATE_MODEL": settings.model,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    if "auto_approve" in settings.model_fields_set:  # else the paper's own choice stands
        env["EXPCURATE_AUTO_APPROVE"] = str(settings.auto_approve).lower()
    else:
        env.pop("EXPCURATE_AUTO_APPROVE", None)
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "expcurate", "advance", paper_id],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    # The review app lives for days and launches many stages: wait for each child so that it
    # is reaped when it ends instead of lingering as a zombie process.
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return f"background process {proc.pid}, log {log_path.name}"
