"""`expcurate`: the curator's and operator's command line, the top layer.

Commands live by audience: `papers` (extract, batch, review and release), `stages` (one
extractor on files), `package` (import, masking, overrides), `usage` (usage tasks), `ops`
(serving flows). Each registers on the one Typer app of `common`.
"""

from __future__ import annotations

import signal
from types import FrameType

from expcurate.cli import ops, package, papers, stages, usage
from expcurate.cli.common import app
from expcurate.settings import get_settings

for _module in (stages, package, usage, ops):
    _module.register(app)


def _stop(signum: int, _frame: FrameType | None) -> None:
    """SIGTERM ends a command the way Ctrl-C does: the running stage is marked interrupted
    and the next command reruns it."""
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> None:
    get_settings()
    signal.signal(signal.SIGTERM, _stop)
    app()


__all__ = ["app", "main", "papers"]
