"""Limits of the paper parser: a time budget, a per-crop pixel cap, and the isolated child
process that enforces a hard wall-clock and memory limit on one document."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pymupdf
import pytest
from paper_fixture import TITLE, build_paper

from expcurate.records import ParsedPaper, Severity, Status
from expcurate.settings import Settings
from extractors.paper import PaperLoadError, isolate, parse_pdf, parse_pdf_isolated

LONG_PAGES = 320
AES_256: int = pymupdf.PDF_ENCRYPT_AES_256  # type: ignore[attr-defined]


def _build_long(path: Path, pages: int) -> Path:
    """Plain text pages, a numbered section every ten: quick to write, but every page costs
    the parser real work."""
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page()
        if n == 1:
            page.insert_text((72, 80), "A Report That Goes On For Pages", fontsize=18)
        if n % 10 == 1:
            page.insert_text((72, 120), f"{n // 10 + 1} Chapter {n // 10 + 1}", fontsize=13)
        body = "\n".join(
            f"Line {k} of page {n} is plain filler text that reads like a sentence."
            for k in range(30)
        )
        page.insert_text((72, 150), body + f"\nmarker-{n}-end.", fontsize=10)
    doc.save(path)
    doc.close()
    return path


def _build_big_image(path: Path) -> Path:
    """One page with a 5000x3500 RGB image (about 50 MB of pixels) under a figure caption."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 5000, 3500), False)
    pix.clear_with(180)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Large Picture Paper", fontsize=18)
    page.insert_image(pymupdf.Rect(72, 100, 540, 430), pixmap=pix)
    page.insert_text((72, 450), "Figure 1: A photograph kept at full resolution.", fontsize=10)
    doc.save(path, deflate=True)
    doc.close()
    return path


@pytest.fixture(scope="module")
def long_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_long(tmp_path_factory.mktemp("long") / "long.pdf", LONG_PAGES)


@pytest.fixture(scope="module")
def big_image_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_big_image(tmp_path_factory.mktemp("big") / "big.pdf")


def _categories(paper: ParsedPaper) -> list[str]:
    return [e.category for e in paper.errors if e.severity == Severity.error]


# ---------------------------------------------------------------- time budget


def test_a_320_page_pdf_parses_every_page_without_a_deadline(long_pdf: Path) -> None:
    paper = parse_pdf(long_pdf, max_pages=400)
    assert paper.pages == LONG_PAGES
    assert _categories(paper) == []
    text = paper.full_text()
    assert "marker-1-end" in text and f"marker-{LONG_PAGES}-end" in text


def test_a_tiny_deadline_stops_between_pages_and_keeps_what_was_read(long_pdf: Path) -> None:
    """Past the deadline the parser returns promptly, partial, with one error naming how far
    it got and which setting to raise; the pages it read are kept."""
    start = time.monotonic()
    paper = parse_pdf(long_pdf, deadline_s=0.05)
    assert time.monotonic() - start < 5
    assert paper.status == Status.partial
    limits = [e for e in paper.errors if e.category == "time_limit"]
    assert len(limits) == 1
    found = re.search(r"stopped after (\d+) of (\d+) pages", limits[0].message)
    assert found and 1 <= int(found[1]) < LONG_PAGES and int(found[2]) == LONG_PAGES
    assert "EXPCURATE_PARSE_TIMEOUT_S" in limits[0].message
    assert "0.05 s" in limits[0].message
    assert paper.title == "A Report That Goes On For Pages"
    assert "marker-1-end" in paper.full_text()
    assert f"marker-{LONG_PAGES}-end" not in paper.full_text()


def test_a_generous_deadline_changes_nothing(tmp_path: Path) -> None:
    pdf = build_paper(tmp_path / "paper.pdf")
    free = parse_pdf(pdf, tmp_path / "a" / "images")
    timed = parse_pdf(pdf, tmp_path / "b" / "images", deadline_s=120)
    assert timed.model_dump() == free.model_dump()
    assert timed.status == Status.succeeded


# ---------------------------------------------------------------- huge images


def test_a_50mb_image_over_the_cap_is_reported_not_rendered(
    big_image_pdf: Path, tmp_path: Path
) -> None:
    images = tmp_path / "images"
    start = time.monotonic()
    paper = parse_pdf(big_image_pdf, images, max_image_mb=10)
    assert time.monotonic() - start < 5
    assert paper.status == Status.partial
    (err,) = [e for e in paper.errors if e.category == "image_too_large"]
    assert err.page == 1 and err.message.startswith("Figure 1: not rendered")
    assert "EXPCURATE_PARSE_MAX_MEMORY_MB" in err.message
    (figure,) = paper.figures
    assert figure.bbox is not None and figure.kind == "raster"  # found from metadata alone
    assert figure.image == "" and not list(images.glob("*.png"))


def test_a_50mb_image_under_the_cap_is_rendered_as_a_small_crop(
    big_image_pdf: Path, tmp_path: Path
) -> None:
    paper = parse_pdf(big_image_pdf, tmp_path / "images")
    assert _categories(paper) == []
    (figure,) = paper.figures
    assert figure.image == "images/figure-1-p1.png"
    pix = pymupdf.Pixmap(str(tmp_path / figure.image))
    assert pix.width < 1000 and pix.height < 1000  # rendered at crop resolution, not 5000 px


# ---------------------------------------------------------------- isolated child process


def test_isolated_parse_gives_the_same_result_as_in_process(tmp_path: Path) -> None:
    pdf = build_paper(tmp_path / "paper.pdf")
    direct = parse_pdf(pdf, tmp_path / "a" / "images")
    isolated = parse_pdf_isolated(
        pdf, tmp_path / "b" / "images", max_pages=400, timeout_s=120, max_memory_mb=2048
    )
    assert isolated.title == TITLE
    assert isolated.model_dump() == direct.model_dump()
    written = sorted(p.name for p in (tmp_path / "b" / "images").glob("*.png"))
    assert written == sorted(p.name for p in (tmp_path / "a" / "images").glob("*.png"))
    assert written


def test_a_parse_killed_before_cleaning_up_leaves_nothing_behind_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left = tmp_path / "tmp" / f"{isolate.TMP_PREFIX}{gone.pid}-abc123"
    left.mkdir()
    (left / "request.json").write_text("{}")
    mine = tmp_path / "tmp" / f"{isolate.TMP_PREFIX}{os.getpid()}-def456"
    mine.mkdir()  # a parse of this very process, in another thread: left alone
    parse_pdf_isolated(build_paper(tmp_path / "paper.pdf"), timeout_s=120, max_memory_mb=2048)
    assert not left.exists() and mine.exists()


def test_isolated_child_past_timeout_and_grace_is_killed(long_pdf: Path) -> None:
    """A child still running at timeout + grace is killed: failed, never a hang or a raise."""
    start = time.monotonic()
    paper = parse_pdf_isolated(long_pdf, timeout_s=0.2, max_memory_mb=2048, grace_s=0)
    assert time.monotonic() - start < 5
    assert paper.status == Status.failed
    (err,) = paper.errors
    assert err.category == "time_limit" and "EXPCURATE_PARSE_TIMEOUT_S" in err.message


def test_isolated_child_over_its_memory_limit_is_reported(long_pdf: Path) -> None:
    """Starved of memory, the child usually reports `memory_limit`; where the allocation fails
    decides the rest (a stall ended by the wall-clock kill, or a crash in C code with nothing
    on stderr, as seen once on a fresh checkout). What holds every time: the parent returns a
    failed or partial paper with the reason, in bounded time, and never hangs or raises."""
    start = time.monotonic()
    paper = parse_pdf_isolated(long_pdf, timeout_s=20, max_memory_mb=5, grace_s=2)
    assert time.monotonic() - start < 30
    assert paper.status in (Status.failed, Status.partial)
    categories = set(_categories(paper))
    assert categories & {"memory_limit", "time_limit", "parser_crashed"}, categories
    if "memory_limit" in categories:
        message = next(e.message for e in paper.errors if e.category == "memory_limit")
        assert "EXPCURATE_PARSE_MAX_MEMORY_MB" in message


@pytest.mark.parametrize(
    ("answer", "code", "stderr", "category"),
    [
        ({"kind": "memory"}, 0, "", "memory_limit"),
        (None, 1, "Traceback ...\nMemoryError", "memory_limit"),
        (
            None,
            -6,
            "terminate called after throwing an instance of 'std::bad_alloc'",
            "memory_limit",
        ),
        (None, -9, "", "memory_limit"),
        (None, -11, "", "parser_crashed"),
        ({"kind": "error", "message": "boom", "traceback": "tb"}, 1, "", "parser_error"),
        (
            {"kind": "error", "message": "code=2: calloc (64 x 648 bytes) failed"},
            1,
            "",
            "memory_limit",
        ),
    ],
)
def test_how_a_child_ended_is_classified(
    answer: dict | None, code: int, stderr: str, category: str
) -> None:
    from extractors.paper.isolate import _interpret

    paper = _interpret(answer, code, stderr, max_memory_mb=64)
    assert paper.status == Status.failed
    assert [e.category for e in paper.errors] == [category]


def test_isolated_parse_caps_crops_at_a_quarter_of_its_memory(
    big_image_pdf: Path, tmp_path: Path
) -> None:
    """With 40 MB allowed, a crop may decode at most 10 MB: the 50 MB image is skipped on
    its metadata alone and the rest of the paper comes back."""
    paper = parse_pdf_isolated(big_image_pdf, tmp_path / "images", max_memory_mb=40)
    assert paper.status == Status.partial
    assert _categories(paper) == ["image_too_large"]
    assert paper.title == "Large Picture Paper"


@pytest.mark.parametrize("kind", ["html", "encrypted"])
def test_load_errors_cross_the_process_boundary_unchanged(tmp_path: Path, kind: str) -> None:
    pdf = tmp_path / "paper.pdf"
    if kind == "html":
        pdf.write_text("<!DOCTYPE html><html><body>Sign in</body></html>")
    else:
        doc = pymupdf.open(build_paper(tmp_path / "plain.pdf"))
        doc.save(pdf, encryption=AES_256, user_pw="secret", owner_pw="owner")
        doc.close()
    with pytest.raises(PaperLoadError) as direct:
        parse_pdf(pdf)
    with pytest.raises(PaperLoadError) as isolated:
        parse_pdf_isolated(pdf, timeout_s=60, max_memory_mb=2048)
    assert str(isolated.value) == str(direct.value)


def test_a_child_that_dies_gives_a_failed_paper_not_an_exception(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parser process that exits without an answer (a crash) is one failed paper."""
    monkeypatch.setattr(isolate, "CHILD_MODULE", "extractors.paper.no_such_child")
    paper = parse_pdf_isolated(build_paper(tmp_path / "paper.pdf"), timeout_s=60)
    assert paper.status == Status.failed
    (err,) = paper.errors
    assert err.category == "parser_crashed" and "exit code 1" in err.message


# ---------------------------------------------------------------- settings


def test_parse_limits_are_settings_with_env_twins(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = Settings()
    assert (defaults.parse_timeout_s, defaults.parse_max_memory_mb) == (300, 2048)
    monkeypatch.setenv("EXPCURATE_PARSE_TIMEOUT_S", "12.5")
    monkeypatch.setenv("EXPCURATE_PARSE_MAX_MEMORY_MB", "512")
    s = Settings()
    assert (s.parse_timeout_s, s.parse_max_memory_mb) == (12.5, 512)
