"""Stores made before Alembic: the schema versions 1–4 recorded in `meta`, brought to schema
4 (the baseline revision) in place, keeping their data."""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from expcurate.records import RunStatus
from expcurate.store.errors import StoreError
from expcurate.store.rows import ONE_RUNNING_RUN

BASELINE = "0004"
# The last `schema_version` written without Alembic (2: stage run leases; 3: a paper remembers
# auto-approval; 4: sign-in failures).
LEGACY_VERSION = 4
# The tables of schema 4; one missing from an older store is created from the models.
TABLES = (
    "meta", "paper", "release", "signin", "signinfailure", "user", "stagerun", "task",
    "review", "taskrevision",
)  # fmt: skip


def to_baseline(conn: Connection, where: str) -> None:
    """Schema 1–4 → 4. A store claiming a newer schema without Alembic is refused."""
    version = conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar()
    number = int(version) if version is not None and str(version).isdigit() else 1
    if number > LEGACY_VERSION:
        raise StoreError(
            f"the store at {where} has schema {number}, newer than this ExpCurate "
            f"({LEGACY_VERSION}); upgrade ExpCurate"
        )
    present = set(inspect(conn).get_table_names())
    missing = [
        t for t in SQLModel.metadata.sorted_tables if t.name in TABLES and t.name not in present
    ]
    # The tables as today's models define them: a later revision that changes one of these
    # must check for its column first (see `add_column`), as a store may have got it here.
    SQLModel.metadata.create_all(conn, tables=missing)
    if number < 2:
        _add_leases(conn)
    add_column(conn, "paper", "auto_approve BOOLEAN NOT NULL DEFAULT FALSE")


def add_column(conn: Connection, table: str, column: str) -> None:
    """ALTER TABLE … ADD COLUMN, unless the column is there already (a half-done upgrade)."""
    if column.split()[0] not in {c["name"] for c in inspect(conn).get_columns(table)}:
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column}")


def _add_leases(conn: Connection) -> None:
    """Schema 1 -> 2: stage runs get an owner and a heartbeat, and at most one may run per
    paper and stage. Runs left running by an older version are interrupted but the newest of
    each stage, which the next run's recovery judges like any other."""
    add_column(conn, "stagerun", "owner VARCHAR NOT NULL DEFAULT ''")
    add_column(conn, "stagerun", "heartbeat_at TIMESTAMP")
    conn.execute(
        text(
            "UPDATE stagerun SET status = :interrupted, current = :no WHERE status = :running "
            "AND id NOT IN (SELECT max(id) FROM stagerun WHERE status = :running "
            "GROUP BY paper_id, stage)"
        ),
        {"interrupted": RunStatus.interrupted.value, "running": RunStatus.running.value,
         "no": False},
    )  # fmt: skip
    conn.exec_driver_sql(
        f"CREATE UNIQUE INDEX IF NOT EXISTS {ONE_RUNNING_RUN} ON stagerun (paper_id, stage) "
        "WHERE status = 'running'"
    )
