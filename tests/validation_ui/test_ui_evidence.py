"""Evidence beside an item: real crops and PDF regions of the sample paper, code lines."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from ui_helpers import PAPER, ROOT

from expcurate.records import Evidence
from expcurate.settings import get_settings
from expcurate.store import Store
from validation_ui import evidence as ev

PNG = b"\x89PNG\r\n\x1a\n"


def test_cited_table_resolves_to_its_crop_page_and_box(drafted: Store) -> None:
    art = ev.load_artifacts(drafted, get_settings(), PAPER)
    assert art.problems == [] and art.pdf is not None and art.repo is not None
    task = drafted.tasks(PAPER)[0]
    views = ev.evidence_views(drafted.fields(task).evidence, art)
    assert len(views) == 1
    view = views[0]
    assert view.found and view.label == "Table 1" and view.page == 3
    assert view.image is not None and view.image.read_bytes().startswith(PNG)
    assert view.bbox is not None and view.rows  # cells came along for the reviewer


def test_unknown_label_is_reported_not_found(drafted: Store) -> None:
    art = ev.load_artifacts(drafted, get_settings(), PAPER)
    views = ev.evidence_views(
        [
            Evidence(kind="table", label="Table 99"),
            Evidence(kind="section", label="4.2 Main Results"),
        ],
        art,
    )
    assert [v.found for v in views] == [False, True]
    assert views[1].text  # the section's text is shown


def test_page_region_is_a_png_of_the_box_not_the_page(drafted: Store) -> None:
    art = ev.load_artifacts(drafted, get_settings(), PAPER)
    assert art.parsed is not None and art.pdf is not None
    table = art.parsed.tables[0]
    region = ev.render_region(art.pdf, table.page, table.bbox)
    whole = ev.render_region(art.pdf, table.page)
    assert region.startswith(PNG) and whole.startswith(PNG)
    w, h = pymupdf.Pixmap(region).width, pymupdf.Pixmap(region).height
    full_w, full_h = pymupdf.Pixmap(whole).width, pymupdf.Pixmap(whole).height
    assert w <= full_w and h < full_h / 2
    with pytest.raises(ValueError, match="outside the PDF"):
        ev.render_region(art.pdf, 999)


def test_missing_artifact_is_reported_not_raised(phase1: Store) -> None:
    run = phase1.current_runs(PAPER)["parse"]
    (get_settings().resolved_data_dir() / run.artifact).unlink()
    art = ev.load_artifacts(phase1, get_settings(), PAPER)
    assert art.parsed is None and art.ingest is not None
    assert len(art.problems) == 1 and "parse artifact" in art.problems[0]


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "train.py").write_text("".join(f"line_{n} = {n}\n" for n in range(1, 11)))
    (tmp_path / "outside.py").write_text("secret = 1\n")
    (repo / "link.py").symlink_to(tmp_path / "outside.py")
    return repo


def test_requirement_code_shows_numbered_marked_lines(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (view,) = ev.requirement_code(["Step 1: Set up (pkg/train.py:4-5)"], repo)
    assert view.problem == "" and view.language == "python" and (view.first, view.last) == (4, 5)
    assert view.code.splitlines() == [
        "2  line_2 = 2", "3  line_3 = 3", "4▶ line_4 = 4", "5▶ line_5 = 5",
        "6  line_6 = 6", "7  line_7 = 7",
    ]  # fmt: skip


def test_code_outside_the_repository_is_never_read(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    refs = [
        "Step 1: a (../outside.py:1-1)",
        "Step 2: b (link.py:1-1)",
        "Step 3: c (pkg/train.py:20-22)",
        "Step 4: no reference",
    ]
    views = ev.requirement_code(refs, repo)
    assert [v.code for v in views] == ["", "", "", ""]
    assert "leaves the repository" in views[0].problem
    assert "leaves the repository" in views[1].problem
    assert "outside pkg/train.py (10 lines)" in views[2].problem
    assert views[3].problem == "no (path:first-last) reference"


def test_long_files_are_cut_with_a_note(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    view = ev.read_lines(repo, "pkg/train.py", 1, None, context=0, max_lines=4)
    assert view.code.splitlines()[-1] == "… (6 more lines)"
    assert len(view.code.splitlines()) == 5


def _validator_checks() -> set[str]:
    try:
        from extractors.validate.catalog import CHECKS
    except ImportError:
        CHECKS = {}
    source = "\n".join(p.read_text() for p in (ROOT / "extractors" / "validate").glob("*.py"))
    named = set(re.findall(r'(?<![A-Za-z_])_?flag\(\s*"([a-z_]+)"', source))
    if 'f"{name}_exists"' in source:
        named |= {"source_exists", "masked_source_exists"}
    return named | set(CHECKS)


def test_every_validator_check_has_a_meaning() -> None:
    """A check added to extractors/validate without a reviewer-facing meaning fails here."""
    checks = _validator_checks()
    assert "outcome_grounded" in checks, "no checks found: has extractors/validate moved?"
    assert sorted(c for c in checks if ev.flag_meaning(c) == ev.UNKNOWN_CHECK) == []
