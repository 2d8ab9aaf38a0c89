"""The deployments `expcurate serve` offers, and the name the launcher starts."""

from typing import Any

import pytest

from flows.launcher import DEPLOYMENT
from flows.serve import ADVANCE, REEXTRACT, build_deployments


def test_launcher_targets_the_served_advance_deployment() -> None:
    """Approvals in the team setup start `advance-paper/advance`: it must be one we serve."""
    names = {f"{d.flow_name}/{d.name}" for d in build_deployments()}
    assert DEPLOYMENT in names
    assert DEPLOYMENT.endswith("/" + ADVANCE)
    assert {"curate-paper/curate", "curate-batch/batch", "reextract-papers/reextract"} <= names


def test_the_reextract_deployment_is_scheduled_only_when_a_cron_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from expcurate.settings import set_settings

    def reextract() -> Any:
        (found,) = [d for d in build_deployments() if d.name == REEXTRACT]
        return found

    set_settings(None)
    assert reextract().schedules in (None, [])
    monkeypatch.setenv("EXPCURATE_REEXTRACT_CRON", "0 3 * * 1")
    set_settings(None)
    (schedule,) = reextract().schedules
    assert schedule.schedule.cron == "0 3 * * 1"
    set_settings(None)
