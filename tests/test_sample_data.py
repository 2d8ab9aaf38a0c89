"""The project's own sample paper and repository (data/sample/) stay consistent.

Every stage and most tests run on these files, so a drift here (a table the parser can no
longer find, a number in the repo's logs that the paper does not print, a committed PDF that
the generator no longer makes) would show up later as confusing failures elsewhere.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pymupdf
import pytest

from expcurate.records import PaperListEntry

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample"
REPO = SAMPLE / "repo"
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


def _load_paper_text() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sample_paper_text", SAMPLE / "paper_text.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


TEXT = _load_paper_text()


def _generate(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-W", "ignore", str(SAMPLE / "make_sample.py"), "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out / "paper.pdf"


@pytest.fixture(scope="module")
def fresh_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("sample_a"))


@pytest.fixture(scope="module")
def paper() -> pymupdf.Document:
    return pymupdf.open(SAMPLE / "paper.pdf")


def _pages(doc: pymupdf.Document) -> list[pymupdf.Page]:
    return [doc[i] for i in range(doc.page_count)]


@pytest.fixture(scope="module")
def tables(paper: pymupdf.Document) -> dict[int, list[Any]]:
    """find_tables() per page, once: it is the slow part of these tests."""
    return {page.number: page.find_tables().tables for page in _pages(paper)}


def _caption_rect(doc: pymupdf.Document, label: str) -> tuple[pymupdf.Page, pymupdf.Rect]:
    hits = [(page, r) for page in _pages(doc) for r in page.search_for(f"{label}:")]
    assert len(hits) == 1, f"{label}: expected one caption, found {len(hits)}"
    return hits[0]


def _words_in(page: pymupdf.Page, rect: pymupdf.Rect) -> list[tuple]:
    return [w for w in page.get_text("words") if pymupdf.Rect(w[:4]).intersects(rect)]


def _table_under_caption(found: list[Any], page: pymupdf.Page, caption: pymupdf.Rect) -> Any:
    below = [t for t in found if t.bbox[1] >= caption.y1]
    assert below, f"no table found below the caption at {caption} on page {page.number + 1}"
    return min(below, key=lambda t: t.bbox[1] - caption.y1)


def _layout(page: pymupdf.Page) -> tuple[list[tuple], int, int]:
    """What a reader sees: every span with its font and place, plus drawings and images."""
    spans = [
        (span["text"], span["font"], tuple(round(v, 1) for v in span["bbox"]))
        for block in page.get_text("dict")["blocks"]
        for line in block.get("lines", [])
        for span in line["spans"]
    ]
    return spans, len(page.get_drawings()), len(page.get_images())


def test_generator_is_deterministic(fresh_pdf: Path, tmp_path: Path) -> None:
    """Same PyMuPDF, same bytes: fixed dates, no random /ID, no clock in the content."""
    again = _generate(tmp_path)
    assert again.read_bytes() == fresh_pdf.read_bytes()


def test_committed_pdf_matches_regenerated_text(fresh_pdf: Path, paper: pymupdf.Document) -> None:
    """The committed paper.pdf is what make_sample.py makes today (regenerate it if not)."""
    fresh = pymupdf.open(fresh_pdf)
    assert fresh.page_count == paper.page_count
    for new, old in zip(_pages(fresh), _pages(paper), strict=True):
        assert _layout(new) == _layout(old), f"page {new.number + 1} differs"
    assert fresh.get_toc() == paper.get_toc()


def test_committed_pdf_is_small() -> None:
    assert (SAMPLE / "paper.pdf").stat().st_size < 300_000


def test_paper_has_numbered_sections_and_all_captions(paper: pymupdf.Document) -> None:
    assert paper.page_count >= 6
    text = "\n".join(page.get_text() for page in _pages(paper))
    assert TEXT.TITLE.split(":")[0] in text and "Abstract" in text
    toc = [title for _, title, _ in paper.get_toc()]
    for heading in ("1  Introduction", "3.3  Gated Token Mixing", "4.1  Setup", "4.3  Ablation"):
        assert any(t.startswith(heading) for t in toc), heading
    assert toc[-2:] == ["References", "A  Implementation Details"]
    for item in TEXT.TABLES + TEXT.FIGURES:
        _caption_rect(paper, item.label)


def test_setup_text_states_the_hyperparameters(paper: pymupdf.Document) -> None:
    """A drafting step reads the setup from the text: the values must be spelled out."""
    text = " ".join(" ".join(page.get_text().split()) for page in _pages(paper))
    for phrase in (
        "learning rate of 0.001",
        "batch size 32",
        "30 epochs",
        "seeds 2021, 2022 and 2023",
        "L = 336",
        "H = 96",
    ):
        assert phrase in text, phrase


@pytest.mark.parametrize("spec", TEXT.TABLES, ids=lambda s: s.label)
def test_each_captioned_table_is_found_with_its_cells(
    paper: pymupdf.Document, tables: dict[int, list[Any]], spec: Any
) -> None:
    """find_tables() sees the grid under the caption; every body cell holds its value."""
    page, caption = _caption_rect(paper, spec.label)
    table = _table_under_caption(tables[page.number], page, caption)
    assert (table.row_count, table.col_count) == (spec.n_rows, len(spec.header[0]))
    body_rows = table.rows[len(spec.header) :]
    for row, expected in zip(body_rows, spec.body, strict=True):
        for cell, value in zip(row.cells, expected, strict=True):
            assert cell is not None
            words = _words_in(page, pymupdf.Rect(cell))
            assert " ".join(w[4] for w in words) == value.strip("*")


def test_best_values_are_bold_and_others_are_not(
    paper: pymupdf.Document, tables: dict[int, list[Any]]
) -> None:
    main = TEXT.MAIN
    page, caption = _caption_rect(paper, main.label)
    table = _table_under_caption(tables[page.number], page, caption)
    spans = [
        s
        for block in page.get_text("dict", clip=pymupdf.Rect(table.bbox))["blocks"]
        for line in block.get("lines", [])
        for s in line["spans"]
    ]
    bold = {s["text"].strip() for s in spans if s["flags"] & pymupdf.TEXT_FONT_BOLD}
    expected = {c.strip("*") for row in main.body for c in row if c.startswith("**")}
    assert bold == expected


def test_no_table_is_found_outside_the_captioned_ones(tables: dict[int, list[Any]]) -> None:
    assert sum(len(found) for found in tables.values()) == len(TEXT.TABLES)


def _is_polyline(items: list[tuple], n_points: int) -> bool:
    """Connected straight segments through `n_points` points: one curve of a line plot."""
    if len(items) != n_points - 1 or any(item[0] != "l" for item in items):
        return False
    return all(a[2] == b[1] for a, b in itertools.pairwise(items))


def test_figure_1_is_vector_and_figure_2_is_raster(paper: pymupdf.Document) -> None:
    images = [(page, img) for page in _pages(paper) for img in page.get_images()]
    assert len(images) == 1, "the sample has exactly one raster figure"
    page, caption = _caption_rect(paper, TEXT.GATES.label)
    assert images[0][0].number == page.number
    (rect,) = page.get_image_rects(images[0][1][0])
    assert 0 <= caption.y0 - rect.y1 < 30, "the image sits right above its caption"

    page, caption = _caption_rect(paper, TEXT.LOOKBACK.label)
    region = pymupdf.Rect(0, caption.y0 - 250, page.rect.width, caption.y0)
    curves = [
        d
        for d in page.get_drawings()
        if d["rect"].intersects(region)
        and d.get("color") not in (None, (0.0, 0.0, 0.0))
        and _is_polyline(d["items"], len(TEXT.LOOKBACK.x_ticks))
    ]
    assert len(curves) == len(TEXT.LOOKBACK.series), "one polyline per series"
    assert page.number != images[0][0].number or not rect.intersects(region), "no raster part"


def test_code_link_is_a_link_annotation(paper: pymupdf.Document) -> None:
    uris = [link.get("uri") for page in _pages(paper) for link in page.get_links()]
    assert TEXT.CODE_URL in uris
    assert TEXT.CODE_URL in paper[0].get_text()


def test_every_python_file_of_the_sample_repo_parses() -> None:
    files = sorted(REPO.rglob("*.py"))
    assert len(files) >= 6
    for path in files:
        ast.parse(path.read_text(), filename=str(path))


def test_result_log_numbers_appear_in_the_paper_tables(
    paper: pymupdf.Document, tables: dict[int, list[Any]]
) -> None:
    """Grounding in miniature: what the repo logged is what the paper's tables print."""
    in_tables: set[str] = set()
    for page in _pages(paper):
        for table in tables[page.number]:
            words = _words_in(page, pymupdf.Rect(table.bbox))
            in_tables |= {w[4] for w in words if DECIMAL.fullmatch(w[4])}
    logged: set[str] = set()
    for path in sorted((REPO / "results").iterdir()):
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                logged |= set(DECIMAL.findall(line))
    assert len(logged) >= 20
    assert logged <= in_tables, sorted(logged - in_tables)


def _log_records(name: str) -> list[dict[str, str]]:
    lines = (REPO / "results" / name).read_text().splitlines()
    return [dict(f.split("=", 1) for f in line.split()) for line in lines if line[:1] != "#"]


def _cell(spec: Any, row_starts: str, column: int) -> str:
    (row,) = [r for r in spec.body if r[0].startswith(row_starts)]
    return str(row[column]).strip("*")


def test_each_logged_result_sits_in_its_own_table_cell() -> None:
    """Not just anywhere in a table: GateMix's ETTh1 MSE is the ETTh1/MSE cell of its row."""
    datasets = [str(h) for h in TEXT.MAIN.header[0]]
    for rec in _log_records("main_results.log"):
        col = next(i for i, h in enumerate(datasets) if h.lower() == rec["dataset"])
        assert _cell(TEXT.MAIN, "GateMix", col) == rec["mse"], rec
        assert _cell(TEXT.MAIN, "GateMix", col + 1) == rec["mae"], rec
    rows = {"full": "GateMix", "no_gate": "w/o gating", "no_channel_mix": "w/o channel"}
    rows |= {"no_patch": "w/o patching", "learn_temperature": "+ learnable"}
    columns = [str(h).lower() for h in TEXT.ABLATION.header[0]]
    records = _log_records("ablation_results.log")
    assert len(records) == len(TEXT.ABLATION.body) * (len(columns) - 1)
    for rec in records:
        cell = _cell(TEXT.ABLATION, rows[rec["variant"]], columns.index(rec["dataset"]))
        assert cell == rec["mse"], rec
    sweep = (REPO / "results" / "sweep_etth1.csv").read_text().splitlines()[1:]
    for line in sweep:
        blocks, width, value = line.split(",")
        col = [str(h) for h in TEXT.SWEEP.header[0]].index(f"D = {width}")
        assert _cell(TEXT.SWEEP, blocks, col) == value, line


def _argparse_flags(path: Path) -> dict[str, str | None]:
    """Flag name -> literal default (None when there is none, e.g. store_true)."""
    flags: dict[str, str | None] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
            continue
        first = node.args[0]
        assert isinstance(first, ast.Constant)
        name = str(first.value).lstrip("-").replace("-", "_")
        flags[name] = None
        for kw in node.keywords:
            if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                flags[name] = None if kw.value.value is None else str(kw.value.value)
    return flags


def test_train_defaults_and_configs_match_the_paper() -> None:
    defaults = _argparse_flags(REPO / "train.py")
    expected = {"lr": "0.001", "batch_size": "32", "epochs": "30", "patience": "5"}
    expected |= {"lookback": "336", "horizon": "96", "n_blocks": "3", "d_model": "128"}
    assert {k: defaults[k] for k in expected} == expected
    for cfg in sorted((REPO / "configs").glob("*.yaml")):
        values = dict(
            line.split("#")[0].split(":", 1)
            for line in cfg.read_text().splitlines()
            if line.strip() and not line.startswith("#")
        )
        values = {k.strip(): v.strip() for k, v in values.items()}
        lr = "0.0005" if cfg.stem == "electricity" else "0.001"  # Section 4.1 says so
        assert values == {**values, **expected, "lr": lr}, cfg.name
    ablation = (REPO / "scripts" / "run_ablation.sh").read_text()
    for switch in ("no_gate", "no_channel_mix", "no_patch", "learn_temperature"):
        assert switch in defaults, switch
        assert "--" + switch.replace("_", "-") in ablation, switch


def test_readme_commands_point_at_existing_files() -> None:
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    commands = [line for block in blocks for line in block.splitlines() if line.strip()]
    assert any(c.startswith("python train.py --dataset") for c in commands)
    for command in commands:
        for target in re.findall(r"(?:python|bash) (\S+\.(?:py|sh))", command):
            assert (REPO / target).is_file(), command


def test_sample_jsonl_is_a_paper_list_entry_with_relative_paths() -> None:
    lines = (SAMPLE / "sample.jsonl").read_text().splitlines()
    assert len(lines) == 1
    entry = PaperListEntry.model_validate(json.loads(lines[0]))
    assert entry.title == TEXT.TITLE
    for rel in (entry.pdf_url, entry.code_url):
        assert not Path(rel).is_absolute()
        assert (ROOT / rel).exists(), rel
