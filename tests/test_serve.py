"""The deployments `expcurate serve` offers, and the name the launcher starts."""

from flows.launcher import DEPLOYMENT
from flows.serve import ADVANCE, build_deployments


def test_launcher_targets_the_served_advance_deployment() -> None:
    """Approvals in the team setup start `advance-paper/advance`: it must be one we serve."""
    names = {f"{d.flow_name}/{d.name}" for d in build_deployments()}
    assert DEPLOYMENT in names
    assert DEPLOYMENT.endswith("/" + ADVANCE)
    assert {"curate-paper/curate", "curate-batch/batch"} <= names
