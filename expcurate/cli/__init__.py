"""`expcurate`: the curator's and operator's command line, the top layer.

Commands live by audience: `papers` (extract, batch, review and release), `stages` (one
extractor on files), `package` (import, masking, overrides), `usage` (usage tasks), `ops`
(serving flows), `upkeep` (re-extraction). Each registers on the one Typer app of `common`.
"""

from __future__ import annotations

from expcurate.cli import ops, package, papers, stages, upkeep, usage
from expcurate.cli.common import BAD_INPUT, app, err
from expcurate.curation.publish import PublishError
from expcurate.curation.signals import stop_cleanly_on_signals
from expcurate.settings import get_settings
from expcurate.store.errors import StoreError

for _module in (stages, package, usage, upkeep, ops):
    _module.register(app)


def main() -> None:
    """Run a command. What the user asked for and the store refuses (no such paper or task, a
    decision the checkpoint does not allow, a release that cannot be written) is one line on
    stderr and exit status 2; a bug keeps its traceback."""
    get_settings()
    stop_cleanly_on_signals()
    try:
        app()
    except (StoreError, PublishError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        raise SystemExit(BAD_INPUT) from None
    except RuntimeError as exc:
        if "Prefect API server" not in str(exc):
            raise
        err.print(
            f"[red]error:[/red] {exc} Nothing was lost: run the same command again, give the "
            "temporary server longer (PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS), or "
            "point PREFECT_API_URL at a running Prefect server.",
            highlight=False,
            soft_wrap=True,
        )
        raise SystemExit(1) from None


__all__ = ["app", "main", "papers"]
