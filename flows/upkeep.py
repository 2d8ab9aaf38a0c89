"""Re-extraction as flows: one paper (`reextract-paper`) and every paper (`reextract-papers`,
the deployment a schedule runs).

A paper that cannot be re-extracted (its repository gone, a stage failing) fails its flow run,
with the reason, so Prefect shows it FAILED; the others go on, and the parent run fails when
any paper did. Each paper ends with the stages re-extraction made due run (`advance`), up to
its next checkpoint.
"""

from __future__ import annotations

from typing import Any

from prefect import flow
from prefect.states import Failed, State

from expcurate.curation.pipeline import recover_interrupted
from expcurate.curation.reextract import PaperReextract, reextract_paper
from expcurate.curation.review import IMPORTED_MODEL, due_stages
from expcurate.curation.services import open_store
from expcurate.settings import get_settings
from expcurate.store import Store
from flows.engine import in_flow_run
from flows.papers import _logger
from flows.run import advance, orchestrated


@flow(name="reextract-paper", flow_run_name="reextract-{paper_id}")
def reextract_paper_flow(paper_id: str, commit: str | None = None) -> PaperReextract | State[Any]:
    """Bring one paper to its repository's newest commit (or `commit`); see
    `expcurate.curation.reextract`."""
    settings = get_settings()
    store = open_store(settings)
    for line in recover_interrupted(store, settings, paper_id):
        _logger().warning("%s", line)
    report = reextract_paper(store, settings, paper_id, commit=commit)
    due = due_stages(store, paper_id) if not report.error else []
    if due:
        summary = advance(paper_id)
        if summary.status.value == "awaiting_review":
            report.awaiting = summary.stage
        report.rerun += [s.value for s in due if s.value not in report.rerun]
    _logger().info("%s", report.line())
    if report.error:
        return Failed(message=report.line(), data=report)
    return report


@flow(name="reextract-papers")
def reextract_papers(paper_ids: list[str] | None = None) -> list[PaperReextract] | State[Any]:
    """Re-extract the papers (default: every extracted paper of the store), one failing
    never stopping the others."""
    store = open_store(get_settings())
    ids = paper_ids or extracted_papers(store)
    reports = [reextract_one(pid) for pid in ids]
    failed = [r for r in reports if r.error]
    if failed:
        return Failed(
            message=f"{len(failed)} of {len(reports)} papers not re-extracted: "
            + "; ".join(r.line() for r in failed[:5]),
            data=reports,
        )
    return reports


def extracted_papers(store: Store) -> list[str]:
    """The papers re-extraction applies to: extracted here, not imported."""
    return [p.id for p in store.papers() if p.model != IMPORTED_MODEL and store.current_runs(p.id)]


def reextract_one(paper_id: str, commit: str | None = None) -> PaperReextract:
    """`reextract_paper_flow` as a flow run when orchestrated (or inside one), else
    in-process; its report either way."""
    if in_flow_run() or orchestrated():
        return _report_of(reextract_paper_flow(paper_id, commit, return_state=True))
    value = reextract_paper_flow.fn(paper_id, commit)
    if isinstance(value, State):  # a failed paper's report rides on its Failed state
        return PaperReextract.model_validate(value.data)
    return PaperReextract.model_validate(value)


def _report_of(state: State[Any]) -> PaperReextract:
    """The report a paper's flow run ended with, the paper failed or not."""
    result = state.result(raise_on_failure=False)
    if isinstance(result, BaseException):  # a crash, not a paper that failed: keep it loud
        raise result
    return PaperReextract.model_validate(result)
