"""Schema migrations of the store, kept by Alembic (`versions/`, one file per change).

`upgrade(engine)` brings a store to the newest revision: a new store is created by the
baseline revision (schema 4, where migrations began), a store made before Alembic is brought
to schema 4 by `legacy.py` and stamped, and later revisions run in order. A store at a
revision this code does not know was upgraded by a newer ExpCurate and is refused in one line.
The `meta` table's `schema_version` row follows the head (revision "0005" is version 5), so
ExpCurate from before Alembic refuses a store upgraded past it instead of misreading it.

Adding a change: copy the newest file in `versions/`, give it the next number as `revision`
and the newest as `down_revision`, write `upgrade()` with `op.*` (SQLite runs it in batch mode)
and `downgrade()`, and add a test that upgrades a store with data in it from the revision
before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from expcurate.store.errors import StoreError
from expcurate.store.migrations.legacy import BASELINE, to_baseline

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Upgrade:
    """What `upgrade` did: the revision the store was at (None: a new store) and is at now."""

    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before is not None and self.before != self.after


def _config(location: Path, connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(location))
    cfg.attributes["connection"] = connection
    return cfg


def head(location: Path = HERE) -> str:
    """The newest revision this code knows."""
    found = ScriptDirectory.from_config(_config(location)).get_current_head()
    assert found is not None
    return found


def current(connection: Connection) -> str | None:
    """The store's revision; None for a store Alembic has not stamped (new, or older)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, where: str, location: Path = HERE) -> Upgrade:
    """Bring the store to the newest revision; `where` names it in messages."""
    with engine.begin() as conn:
        cfg = _config(location, conn)
        script = ScriptDirectory.from_config(cfg)
        newest = script.get_current_head()
        assert newest is not None
        before = current(conn)
        known = {rev.revision for rev in script.walk_revisions()}
        if before is not None and before not in known:
            raise StoreError(
                f"the store at {where} is at schema revision {before}, newer than this ExpCurate "
                f"(newest {newest}); upgrade ExpCurate"
            )
        if before is None and "paper" in inspect(conn).get_table_names():
            to_baseline(conn, where)  # a store from before Alembic
            command.stamp(cfg, BASELINE)
            before, stamped = BASELINE, True
        else:
            stamped = False
        if before != newest:
            command.upgrade(cfg, "head")
        if stamped or before != newest:  # an open that changed nothing writes nothing
            _write_version(conn, newest)
    return Upgrade(before, newest)


def _write_version(conn: Connection, revision: str) -> None:
    value = str(int(revision)) if revision.isdigit() else revision
    updated = conn.execute(
        text("UPDATE meta SET value = :v WHERE key = 'schema_version'"), {"v": value}
    )
    if not updated.rowcount:
        conn.execute(
            text("INSERT INTO meta (key, value) VALUES ('schema_version', :v)"), {"v": value}
        )


__all__ = ["HERE", "Upgrade", "current", "head", "upgrade"]
