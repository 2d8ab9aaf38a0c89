"""The paper parser on real PDFs: small ones drawn here, the sample paper, the shared corpus."""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

import pymupdf
import pytest
from paper_fixture import CODE_URL, DATA_URL, TABLE_ROWS, TITLE, build_paper, build_scanned

import extractors.paper.parse as engine
from expcurate.records import ParsedPaper, Severity, Status
from extractors.paper import PaperLoadError, parse_pdf
from extractors.paper.layout import Word
from extractors.paper.tables import build_cells

REPO = Path(__file__).resolve().parents[2]
# Read at import: the suite's autouse fixture clears EXPCURATE_* variables before each test.
CORPUS = Path(os.environ.get("EXPCURATE_CORPUS_DIR") or REPO.parent / "shared" / "corpus")
SAMPLE = REPO / "data" / "sample" / "paper.pdf"
AES_256: int = pymupdf.PDF_ENCRYPT_AES_256  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ParsedPaper]:
    base = tmp_path_factory.mktemp("toy")
    pdf = build_paper(base / "paper.pdf")
    return base, parse_pdf(pdf, base / "images")


# ---------------------------------------------------------------- front matter and sections


def test_title_authors_and_abstract_come_from_page_one(toy) -> None:
    _, paper = toy
    assert paper.status == Status.succeeded and paper.errors == []
    assert paper.pages == 2
    assert paper.title == TITLE
    assert paper.authors == "Ada Example, Ben Sample"
    assert paper.abstract.startswith("This abstract states the claim")
    assert "Introduction" not in paper.abstract


def test_sections_follow_two_column_reading_order_with_levels(toy) -> None:
    _, paper = toy
    got = [(s.number, s.title, s.level, s.page) for s in paper.sections]
    assert got == [
        ("1", "Introduction", 1, 1),
        ("2", "Method", 1, 1),
        ("2.1", "Setup", 2, 1),
        ("3", "Conclusion", 1, 2),
        ("A", "Extra Details", 1, 2),
    ]
    intro = paper.sections[0]
    assert intro.text.startswith("We describe a small synthetic study")
    assert "Table 1. The numbers there" in intro.text  # running text stays in the body
    assert [s.appendix for s in paper.sections] == [False, False, False, False, True]


def test_outline_entries_add_headings_the_typography_does_not_show(tmp_path: Path) -> None:
    def build(name: str, outline: bool) -> Path:
        doc = pymupdf.open()
        page = doc.new_page()
        page.insert_text((72, 72), "1 Introduction", fontsize=12, fontname="tibo")
        page.insert_text((72, 100), "Some opening words of the paper.", fontsize=10)
        page.insert_text((72, 130), "2 Results in Plain Type", fontsize=10)  # body font
        page.insert_text((72, 150), "The results are described here.", fontsize=10)
        if outline:
            doc.set_toc([[1, "Introduction", 1], [1, "Results in Plain Type", 1]])
        doc.save(tmp_path / name)
        return tmp_path / name

    plain = parse_pdf(build("plain.pdf", outline=False))
    assert [s.number for s in plain.sections] == ["1"]
    with_toc = parse_pdf(build("toc.pdf", outline=True))
    assert [(s.number, s.title) for s in with_toc.sections] == [
        ("1", "Introduction"),
        ("2", "Results in Plain Type"),
    ]
    assert with_toc.sections[1].text == "The results are described here."


def test_references_are_cut_out_of_the_body(toy) -> None:
    _, paper = toy
    assert paper.references.startswith("[1] A. Person. A study of widgets.")
    assert all("A study of widgets" not in s.text for s in paper.sections)


# ---------------------------------------------------------------- tables


def test_ruled_table_comes_back_as_cells_with_bold_best_row(toy) -> None:
    _, paper = toy
    assert len(paper.tables) == 1, "a mention of Table 1 in running text is not a second table"
    table = paper.tables[0]
    assert table.label == "Table 1" and table.page == 2
    assert table.caption == "Table 1: Accuracy and F1 of the toy models on the synthetic benchmark."
    assert table.rows == TABLE_ROWS
    assert table.bold == [[False] * 3, [False] * 3, [True] * 3]
    assert table.section == "2.1 Setup"
    x0, y0, x1, y1 = table.bbox or (0, 0, 0, 0)
    assert x0 < 160 and x1 > 430 and y0 > 80 and y1 < 150


def test_table_crop_is_a_png_next_to_the_images_dir(toy) -> None:
    base, paper = toy
    table = paper.tables[0]
    assert table.image == "images/table-1-p2.png"
    png = base / table.image
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pix = pymupdf.Pixmap(str(png))
    assert pix.width > 300 and pix.height > 50  # ~330 x 50 pt at 110 dpi


def test_abbreviated_captions_below_their_floats(tmp_path: Path) -> None:
    """'Tab. 2.' under a table and 'Fig. 3.' under a drawing, single column."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "1 Introduction", fontsize=12, fontname="tibo")
    page.insert_text((72, 92), "A sentence of body text to set the body size.", fontsize=10)
    page.draw_line((100, 110), (400, 110), width=0.8)
    for k, row in enumerate([["Model", "Score"], ["A", "1.5"], ["B", "2.5"]]):
        page.insert_text((120, 125 + 14 * k), row[0], fontsize=9)
        page.insert_text((300, 125 + 14 * k), row[1], fontsize=9)
    page.draw_line((100, 160), (400, 160), width=0.8)
    page.insert_text((72, 176), "Tab. 2. Scores of two models.", fontsize=9)
    page.draw_rect(pymupdf.Rect(150, 200, 350, 300), color=(0, 0, 0), fill=(0.8, 0.8, 1.0))
    page.draw_bezier((160, 290), (200, 210), (260, 290), (340, 210), color=(1, 0, 0))
    page.insert_text((72, 318), "Fig. 3. A drawn shape.", fontsize=9)
    page.insert_text((72, 340), "More body text follows the figure here.", fontsize=10)
    doc.save(tmp_path / "p.pdf")
    paper = parse_pdf(tmp_path / "p.pdf", tmp_path / "img")
    assert [(t.label, t.caption, t.rows) for t in paper.tables] == [
        (
            "Table 2",
            "Tab. 2. Scores of two models.",
            [["Model", "Score"], ["A", "1.5"], ["B", "2.5"]],
        )
    ]
    assert [(f.label, f.kind) for f in paper.figures] == [("Figure 3", "vector")]
    assert paper.figures[0].bbox == pytest.approx((150, 200, 350, 300), abs=2)
    assert paper.figures[0].image == "img/figure-3-p1.png"


# ---------------------------------------------------------------- figures


def test_vector_plot_and_raster_image_become_figures(toy) -> None:
    base, paper = toy
    figs = {f.label: f for f in paper.figures}
    assert set(figs) == {"Figure 1", "Figure 2"}
    plot, picture = figs["Figure 1"], figs["Figure 2"]
    assert plot.kind == "vector" and picture.kind == "raster"
    assert plot.caption == "Figure 1: Loss of the toy model over training steps."
    px0, py0, px1, py1 = plot.bbox or (0, 0, 0, 0)
    assert px0 <= 80 and px1 >= 260 and py0 <= 167 and 276 <= py1 < 295  # axes + tick labels
    assert picture.bbox == pytest.approx((361.7, 166.0, 508.3, 276.0), abs=1.0)
    for fig in (plot, picture):
        assert (base / fig.image).read_bytes()[:4] == b"\x89PNG"


def test_plot_axes_ticks_and_legend_are_read_from_the_vector_figure() -> None:
    """The sample's Figure 1: a rotated y title left of the tick labels (the box widens to
    take it in), an x title under its tick row, series names in the legend."""
    plot, heatmap = parse_pdf(SAMPLE, None).figures
    y, x = plot.axes
    assert (y.orientation, y.label, y.ticks) == ("y", "Test MSE", ["0.35", "0.40", "0.45"])
    assert (x.orientation, x.label) == ("x", "Look-back window L")
    assert x.ticks == ["48", "96", "192", "336", "720"]
    assert plot.legend == ["GateMix", "MLP-Mixer", "Linear", "Transformer"]
    assert plot.ticks == 8 and plot.bbox is not None and plot.bbox[0] < 125
    assert heatmap.kind == "raster" and not heatmap.axes and heatmap.ticks == 0


def test_without_images_dir_no_crops_are_written(tmp_path: Path) -> None:
    pdf = build_paper(tmp_path / "p.pdf")
    paper = parse_pdf(pdf)
    assert paper.tables[0].rows == TABLE_ROWS
    assert all(f.image == "" for f in paper.figures) and paper.tables[0].image == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pdf"]


# ---------------------------------------------------------------- links


def test_links_come_from_annotations_and_text_cleaned_and_deduplicated(toy) -> None:
    _, paper = toy
    assert paper.links == [CODE_URL, DATA_URL]  # printed + annotated code URL appears once
    assert paper.code_links() == [CODE_URL, DATA_URL]


# ---------------------------------------------------------------- problems inside a PDF


def test_scanned_pdf_is_partial_with_a_no_text_layer_error(tmp_path: Path) -> None:
    paper = parse_pdf(build_scanned(tmp_path / "scan.pdf"))
    assert paper.status == Status.partial
    assert [e.category for e in paper.errors] == ["no_text_layer"]
    assert "scanned, no text layer, OCR not enabled" in paper.errors[0].message


def test_a_page_that_fails_is_recorded_and_the_rest_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = build_paper(tmp_path / "p.pdf")
    real = engine.read_page

    def flaky(page: pymupdf.Page):
        if page.number == 1:
            raise RuntimeError("content stream is broken")
        return real(page)

    monkeypatch.setattr(engine, "read_page", flaky)
    paper = parse_pdf(pdf)
    assert paper.status == Status.partial
    assert [(e.category, e.page) for e in paper.errors] == [("page_unreadable", 2)]
    assert [s.number for s in paper.sections] == ["1", "2", "2.1"]


def test_max_pages_limits_the_parse_with_a_warning(tmp_path: Path) -> None:
    paper = parse_pdf(build_paper(tmp_path / "p.pdf"), max_pages=1)
    assert paper.pages == 2 and paper.tables == []
    assert [(e.category, e.severity) for e in paper.errors] == [
        ("too_many_pages", Severity.warning)
    ]
    assert paper.status == Status.succeeded


# ---------------------------------------------------------------- files that are no PDF


def test_missing_file_raises_a_load_error_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(PaperLoadError, match="no such file; check the path"):
        parse_pdf(tmp_path / "nope.pdf")


def test_empty_file_raises_a_load_error(tmp_path: Path) -> None:
    pdf = tmp_path / "empty.pdf"
    pdf.write_bytes(b"")
    with pytest.raises(PaperLoadError, match=r"empty \(0 bytes\).*fetch it again"):
        parse_pdf(pdf)


def test_html_saved_as_pdf_is_recognised(tmp_path: Path) -> None:
    pdf = tmp_path / "login.pdf"
    pdf.write_text("<!DOCTYPE html><html><body>Please sign in</body></html>")
    with pytest.raises(PaperLoadError, match=r"HTML page.*not a PDF.*arXiv /pdf/"):
        parse_pdf(pdf)


def test_png_renamed_pdf_is_recognised(tmp_path: Path) -> None:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False)
    pdf = tmp_path / "figure.pdf"
    pdf.write_bytes(pix.tobytes("png"))
    with pytest.raises(PaperLoadError, match="a PNG image, not a PDF"):
        parse_pdf(pdf)


def test_truncated_pdf_without_pages_is_a_load_error(tmp_path: Path) -> None:
    data = build_paper(tmp_path / "full.pdf").read_bytes()
    pdf = tmp_path / "cut.pdf"
    pdf.write_bytes(data[:600])
    with pytest.raises(PaperLoadError, match=r"(corrupt|truncated).*download it again"):
        parse_pdf(pdf)


def test_garbage_after_pdf_header_is_a_load_error(tmp_path: Path) -> None:
    pdf = tmp_path / "junk.pdf"
    pdf.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    with pytest.raises(PaperLoadError, match=r"corrupt PDF.*download it again"):
        parse_pdf(pdf)


def test_damaged_but_repairable_pdf_parses_as_partial(tmp_path: Path) -> None:
    data = build_paper(tmp_path / "full.pdf").read_bytes()
    pdf = tmp_path / "damaged.pdf"
    pdf.write_bytes(data[: int(len(data) * 0.9)])  # cross-reference table cut off
    paper = parse_pdf(pdf)
    assert paper.status == Status.partial
    assert paper.errors[0].category == "damaged_pdf"


def test_password_protected_pdf_says_a_password_is_needed(tmp_path: Path) -> None:
    doc = pymupdf.open(build_paper(tmp_path / "plain.pdf"))
    pdf = tmp_path / "locked.pdf"
    doc.save(pdf, encryption=AES_256, user_pw="secret", owner_pw="owner")
    with pytest.raises(PaperLoadError, match=r"encrypted and needs a password.*qpdf --decrypt"):
        parse_pdf(pdf)


def test_owner_only_encryption_still_parses(tmp_path: Path) -> None:
    doc = pymupdf.open(build_paper(tmp_path / "plain.pdf"))
    pdf = tmp_path / "restricted.pdf"
    doc.save(pdf, encryption=AES_256, owner_pw="owner", permissions=0)
    paper = parse_pdf(pdf)
    assert paper.title == TITLE and paper.tables[0].rows == TABLE_ROWS


def test_load_error_is_a_value_error() -> None:
    assert issubclass(PaperLoadError, ValueError)


# ---------------------------------------------------------------- the sample paper


@pytest.mark.skipif(not SAMPLE.exists(), reason="data/sample/paper.pdf not built yet")
def test_sample_paper_parses_every_captioned_float(tmp_path: Path) -> None:
    paper = parse_pdf(SAMPLE, tmp_path / "images")
    assert paper.status == Status.succeeded, paper.errors
    assert paper.title and paper.abstract and len(paper.sections) >= 5
    expected = _coverage().captions_in_text(SAMPLE)
    tables = {("table", t.number, t.page) for t in paper.tables if t.rows}
    figures = {("figure", f.label.split()[-1], f.page) for f in paper.figures if f.image}
    assert expected == tables | figures
    assert all((tmp_path / f.image).exists() for f in paper.figures)
    assert paper.code_links(), "the sample prints its code link"


# ---------------------------------------------------------------- the shared corpus


def _coverage() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "parse_coverage", REPO / "benchmarks" / "parse_coverage.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason=f"no corpus at {CORPUS} (EXPCURATE_CORPUS_DIR)")
def test_corpus_meets_the_coverage_bars(tmp_path: Path) -> None:
    """>= 95% of captioned tables with cells and figures with an image, over all papers;
    every paper that prints its repository gets that link; all parse without errors."""
    cov = _coverage()
    folders = sorted(p for p in CORPUS.iterdir() if (p / "paper.pdf").exists())
    assert folders, f"{CORPUS} holds no <slug>/paper.pdf"
    started = time.perf_counter()
    stats = [cov.measure(f, tmp_path) for f in folders]
    elapsed = time.perf_counter() - started
    tables = sum(s.tables_text for s in stats), sum(s.tables_cells for s in stats)
    figures = sum(s.figures_text for s in stats), sum(s.figures_image for s in stats)
    assert tables[1] >= 0.95 * tables[0], [s.missing for s in stats]
    assert figures[1] >= 0.95 * figures[0], [s.missing for s in stats]
    assert [s.slug for s in stats if s.repo_printed and not s.repo_found] == []
    assert [(s.slug, s.status) for s in stats if s.errors] == []
    assert all(s.sections >= 5 for s in stats)
    assert elapsed < 60


def test_multirow_and_rotated_group_labels_join_the_first_row_of_their_group(
    tmp_path: Path,
) -> None:
    """LaTeX's multirow centres a label on its rows and a rotated group name runs along them;
    neither has a line of its own. Both belong to the first row of their group, in columns
    of their own, under a stub header ("Mask Ratio") that spans the label columns."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "1 Introduction", fontsize=12, fontname="tibo")
    page.insert_text((72, 92), "A sentence of body text to set the body size.", fontsize=10)
    page.draw_line((100, 110), (460, 110), width=0.8)
    for x, text in [(130, "Datasets"), (250, "SetA"), (370, "SetB")]:
        page.insert_text((x, 124), text, fontsize=9)
    xs = [220, 270, 340, 390]
    page.insert_text((128, 138), "Mask Ratio", fontsize=9)
    for x, text in zip(xs, ["12.5%", "25%", "12.5%", "25%"], strict=True):
        page.insert_text((x, 138), text, fontsize=9)
    page.draw_line((100, 143), (460, 143), width=0.5)
    values = iter(f"0.{k:03d}" for k in range(100, 400, 7))
    for g, group in enumerate(["Alpha", "Beta"]):
        top = 158 + g * 60
        page.insert_text((117, top + 32), group, fontsize=9, rotate=90)
        for m, mode in enumerate(["Unified", "Independent"]):
            y = top + m * 28
            page.insert_text((126, y + 6.5), mode, fontsize=9)  # centred on its two rows
            for r, metric in enumerate(["MSE", "MAE"]):
                page.insert_text((180, y + r * 13), metric, fontsize=9)
                for x in xs:
                    page.insert_text((x, y + r * 13), next(values), fontsize=9)
    page.draw_line((100, 282), (460, 282), width=0.8)
    page.insert_text((72, 298), "Table 3: Unified against independent training.", fontsize=9)
    page.insert_text((72, 322), "More body text follows the table here.", fontsize=10)
    doc.save(tmp_path / "p.pdf")
    (table,) = parse_pdf(tmp_path / "p.pdf").tables
    assert table.rows[1] == ["", "Mask Ratio", "", "12.5%", "25%", "12.5%", "25%"]
    assert [r[:4] for r in table.rows[2:]] == [
        ["Alpha", "Unified", "MSE", "0.100"],
        ["", "", "MAE", "0.128"],
        ["", "Independent", "MSE", "0.156"],
        ["", "", "MAE", "0.184"],
        ["Beta", "Unified", "MSE", "0.212"],
        ["", "", "MAE", "0.240"],
        ["", "Independent", "MSE", "0.268"],
        ["", "", "MAE", "0.296"],
    ]
    assert (table.reader, table.header_rows, table.blocks) == ("words", 2, [6])


def test_header_rows_and_blocks_come_from_the_rules(tmp_path: Path) -> None:
    """A two-line header closed by a rule, a rule between two size tiers, and a group label
    centred on the second tier: the record says where the header ends and where each block
    starts, and the centred label moves to its block's first row."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "1 Introduction", fontsize=12, fontname="tibo")
    page.insert_text((72, 92), "A sentence of body text to set the body size.", fontsize=10)
    page.insert_text((72, 110), "Table 1: Accuracy of each model size.", fontsize=9)
    page.draw_line((100, 118), (460, 118), width=0.8)
    page.insert_text((120, 130), "Tier", fontsize=9)
    page.insert_text((180, 130), "Method", fontsize=9)
    page.insert_text((300, 130), "Acc.", fontsize=9)
    page.insert_text((380, 130), "Params", fontsize=9)
    page.insert_text((300, 141), "(%)", fontsize=9)
    page.insert_text((380, 141), "(M)", fontsize=9)
    page.draw_line((100, 146), (460, 146), width=0.5)
    tiers = [
        ["Small", ("Base-S", "70.1", "4.0"), ("Ours-S", "72.3", "4.1")],
        [
            "Large",
            ("Base-L", "80.2", "40.0"),
            ("Other-L", "80.9", "41.0"),
            ("Ours-L", "82.0", "40.5"),
        ],
    ]
    y = 158.0
    for t, (name, *rows) in enumerate(tiers):
        if t:
            page.draw_line((100, y - 9), (460, y - 9), width=0.4)
        page.insert_text((120, y + (len(rows) - 1) * 12 / 2), name, fontsize=9)  # centred
        for method, acc, params in rows:
            page.insert_text((180, y), method, fontsize=9)
            page.insert_text((300, y), acc, fontsize=9)
            page.insert_text((380, y), params, fontsize=9)
            y += 12
        y += 6
    page.draw_line((100, y - 12), (460, y - 12), width=0.8)
    page.insert_text((72, y + 20), "More body text follows the table here.", fontsize=10)
    doc.save(tmp_path / "p.pdf")
    (table,) = parse_pdf(tmp_path / "p.pdf").tables
    assert table.rows[:2] == [["Tier", "Method", "Acc.", "Params"], ["", "", "(%)", "(M)"]]
    assert [r[:2] for r in table.rows[2:]] == [
        ["Small", "Base-S"],
        ["", "Ours-S"],
        ["Large", "Base-L"],
        ["", "Other-L"],
        ["", "Ours-L"],
    ]
    assert (table.header_rows, table.blocks, table.doubts) == (2, [4], [])


def _words(y: float, items: list[tuple[float, str]], size: float = 8.0) -> list[Word]:
    return [Word(bbox=(x, y, x + 0.5 * size * len(t), y + size), text=t) for x, t in items]


def test_a_row_of_names_set_close_is_a_header_and_a_line_of_prose_is_not() -> None:
    """Model names over their columns, a space apart, are cells; "(b) Results on the test
    set" across the table is one cell, as are proper names listed with commas."""
    names = _words(100, [(100, "Alpha"), (122, "Beta"), (140, "Gamma"), (162, "Delta")])
    body = [
        w
        for k in range(3)
        for w in _words(112 + 12 * k, [(104, "0.1"), (124, "0.2"), (144, "0.3"), (164, "0.4")])
    ]
    rows, _, _ = build_cells(names + body, [])
    assert rows[0] == ["Alpha", "Beta", "Gamma", "Delta"]
    prose = _words(100, [(100, "(b)"), (114, "Results"), (144, "on"), (154, "the"), (168, "set")])
    listed = _words(100, [(100, "Canada:"), (130, "Alberta,"), (164, "Yukon,"), (190, "Nunavut")])
    for line in (prose, listed):
        rows, _, _ = build_cells(line + body, [])
        assert rows[0][0] == " ".join(w.text for w in line) and not any(rows[0][1:])


def test_values_run_together_in_the_text_layer_come_apart() -> None:
    from extractors.paper.tables import unglue

    word = Word((200.0, 100.0, 248.0, 109.0), "0.420.840.56")
    pieces = unglue(word)
    assert [w.text for w in pieces] == ["0.42", "0.84", "0.56"]
    assert pieces[0].bbox[0] == 200.0 and pieces[-1].bbox[2] == 248.0
    for text in ["1.2.3", "12.5", "v1.2.3", "3.14.15"]:  # versions and single values stay
        assert [w.text for w in unglue(Word((0, 0, 30, 9), text))] == [text]
    # two headers joined at a footnote mark: each over its own column
    glued = unglue(Word((100.0, 50.0, 168.0, 59.0), "DLinear\u2217FEDformer"))
    assert [w.text for w in glued] == ["DLinear\u2217", "FEDformer"]
    assert glued[0].bbox[2] == glued[1].bbox[0] < 140.0
    for text in ["LightTS\u2217", "A*B", "x*Y", "Q-Learning*", "(2023)\u2020"]:  # marks alone
        assert [w.text for w in unglue(Word((0, 0, 30, 9), text))] == [text]


def test_a_label_with_glued_values_is_a_doubt_of_the_reading() -> None:
    from extractors.paper.table_shape import table_shape

    rows = [["Method", "A", "B"], ["Base", "0.51", "0.62"], ["GNNExp 0.42 0.84", "", ""]]
    ys = [(100.0, 108.0), (112.0, 120.0), (124.0, 132.0)]
    shape = table_shape(rows, ys, [], (90.0, 95.0, 300.0, 140.0))
    assert shape.header_rows == 1
    assert shape.doubts[0] == "numbers inside row labels ('GNNExp 0.42 0.84')"


def test_a_caption_ends_where_the_table_under_it_begins(tmp_path: Path) -> None:
    """A caption with no full stop set right above an unruled table: MuPDF puts both in one
    text block. The caption stops at the header row, the rows stop at the prose after."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "1 Introduction", fontsize=12, fontname="tibo")
    page.insert_text((72, 92), "A sentence of body text to set the body size.", fontsize=10)
    page.insert_text(
        (100, 120), "Table 1: Models and fixed settings used in experiments", fontsize=9
    )
    rows = [["Model", "Layers", "Hidden", "Sequence"], ["Small", "12", "768", "1024"]]
    rows.append(["Large", "24", "1024", "2048"])
    y = 131
    for row in rows:
        for x, cell in zip([100, 200, 280, 360], row, strict=True):
            page.insert_text((x, y), cell, fontsize=9)
        y += 11
    page.insert_text((72, y + 20), "More body text follows the table here.", fontsize=10)
    doc.save(tmp_path / "p.pdf")
    (table,) = parse_pdf(tmp_path / "p.pdf").tables
    assert table.caption == "Table 1: Models and fixed settings used in experiments"
    assert table.rows == rows
    assert (table.reader, table.header_rows) == ("words", 1)


def test_group_labels_beside_the_middle_of_their_rows_move_to_the_first_row() -> None:
    """A label broken over two lines beside the middle of a four-row group, and one on a
    line of its own between two rows of the next group: both go to their group's first row,
    whole, and each group is a block."""
    from extractors.paper.table_shape import apply_moves, table_shape

    rows = [
        ["Model", "Method", "Acc", "F1"],
        ["", "Base", "1.0", "2.0"],
        ["Small", "Prior", "1.1", "2.1"],
        ["Instruct", "Mix", "1.2", "2.2"],
        ["", "Ours", "1.3", "2.3"],
        ["", "Base", "3.0", "4.0"],
        ["", "Prior", "3.1", "4.1"],
        ["Large-V3", "", "", ""],
        ["", "Mix", "3.2", "4.2"],
        ["", "Ours", "3.3", "4.3"],
    ]
    ys = [(float(10 * i), float(10 * i + 8)) for i in range(len(rows))]
    shape = table_shape(rows, ys, [], (0.0, 0.0, 300.0, 100.0))
    fixed, _ = apply_moves([list(r) for r in rows], [], shape.moved)
    assert [r[0] for r in fixed] == ["Model", "Small Instruct", "", "", "", "Large-V3"] + [""] * 4
    assert (shape.header_rows, shape.blocks) == (1, [5])


def test_a_process_without_pymupdfs_layout_model_still_finds_tables() -> None:
    """`extractors.nolayout` keeps PyMuPDF's layout model out of the parse child and the
    command; PyMuPDF's own table finder (the parser's fallback) must still work there."""
    import subprocess

    if importlib.util.find_spec("pymupdf.layout") is None:
        pytest.skip("PyMuPDF's layout add-on is not installed here: nothing to keep out")
    probe = (
        "import sys\n"
        "from extractors.nolayout import keep_layout_out\n"
        "keep_layout_out()\n"
        "import pymupdf\n"
        f"page = pymupdf.open({str(SAMPLE)!r})[2]\n"
        "found = page.find_tables()\n"
        "print(len(found.tables), 'pymupdf.layout' in sys.modules, 'onnxruntime' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    tables, layout, onnx = done.stdout.split()
    assert int(tables) >= 1 and (layout, onnx) == ("False", "False")
