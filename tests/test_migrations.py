"""Schema migrations (Alembic) on SQLite and PostgreSQL: new stores, stores from before
Alembic, a later revision run over data, and stores newer than the code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.settings import Settings
from expcurate.store import Store, StoreError
from expcurate.store.migrations import HERE, current, head, upgrade

pytestmark = pytest.mark.databases

LATER = '''"""A test-only change: papers get a note."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.add_column(sa.Column("note", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.drop_column("note")
'''


def _version(store: Store) -> str:
    with store.engine.connect() as conn:
        return str(conn.execute(text("SELECT value FROM meta WHERE key='schema_version'")).scalar())


def _revision(store: Store) -> str | None:
    with store.engine.connect() as conn:
        return current(conn)


def test_a_new_store_is_created_at_the_newest_revision(settings: Settings) -> None:
    store = Store(settings.database_url())
    assert _revision(store) == head() == "0004"
    assert _version(store) == "4"
    Store(settings.database_url())  # a second open changes nothing
    assert _revision(store) == head()


def test_a_store_from_before_migrations_is_stamped_and_keeps_its_data(settings: Settings) -> None:
    store = Store(settings.database_url())
    store.upsert_paper("p1", title="Kept")
    with store.engine.begin() as conn:
        conn.execute(text("DROP TABLE alembic_version"))  # as ExpCurate wrote it before Alembic
    again = Store(settings.database_url())
    assert _revision(again) == "0004"
    assert again.require_paper("p1").title == "Kept"


def test_a_later_revision_runs_over_data_and_the_older_code_refuses_the_result(
    settings: Settings, tmp_path: Path
) -> None:
    store = Store(settings.database_url())
    store.upsert_paper("p1", title="Kept")
    later = tmp_path / "migrations"
    shutil.copytree(HERE, later, ignore=shutil.ignore_patterns("__pycache__"))
    (later / "versions" / "0005_paper_note.py").write_text(LATER)

    done = upgrade(store.engine, "the test store", later)
    assert (done.before, done.after, done.changed) == ("0004", "0005", True)
    with store.engine.connect() as conn:
        assert "note" in {c["name"] for c in inspect(conn).get_columns("paper")}
        assert conn.execute(text("SELECT title FROM paper WHERE id='p1'")).scalar() == "Kept"
    assert _version(store) == "5"
    assert upgrade(store.engine, "the test store", later).changed is False  # idempotent

    with pytest.raises(StoreError, match=r"schema revision 0005, newer than this ExpCurate"):
        Store(settings.database_url())


def test_db_commands_report_and_upgrade(settings: Settings) -> None:
    url = settings.database_url()
    runner = CliRunner()
    result = runner.invoke(
        app, ["db", "upgrade", "--db-url", url, "--data-dir", str(settings.data_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "0004" in result.output
    result = runner.invoke(
        app, ["db", "current", "--db-url", url, "--data-dir", str(settings.data_dir)]
    )
    assert result.exit_code == 0 and "0004 (newest)" in result.output


def test_the_migrations_build_exactly_the_schema_the_models_declare(settings: Settings) -> None:
    """A model changed without a revision (or a revision that differs from the models) fails
    here, on both databases."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlmodel import SQLModel

    store = Store(settings.database_url())
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diffs == []
