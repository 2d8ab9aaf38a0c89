"""Small real PDFs for the paper parser tests, drawn with PyMuPDF.

`build_paper` writes a three-page, two-column paper: title, authors, an abstract, numbered
sections and subsections in both columns, a ruled table with a bold best result, a vector
line plot, a raster image, a printed and an annotated code link, references and an
appendix. Everything sits at known coordinates so the tests can check what comes back.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

W, H = 612.0, 792.0
LEFT = (54.0, 294.0)  # column x-ranges
RIGHT = (318.0, 558.0)
CODE_URL = "https://github.com/example-org/example-repo"
DATA_URL = "https://huggingface.co/datasets/example-org/tiny-set"
TITLE = "Gated Widgets for Reliable Toy Experiments"
TABLE_ROWS = [
    ["Method", "Acc", "F1"],
    ["Baseline", "71.2", "68.0"],
    ["Ours", "84.5", "80.1"],
]

FILLER = (
    "We describe a small synthetic study that exercises the parser with ordinary prose. "
    "Each sentence here is plain text set in the body font so that the column detection "
    "and the reading order have real paragraphs to work with. "
)


def _para(page: pymupdf.Page, col: tuple[float, float], y: float, text: str) -> float:
    """Set a paragraph in a column from y; return the y under it."""
    rect = pymupdf.Rect(col[0], y, col[1], y + 400)
    spare = page.insert_textbox(rect, text, fontsize=10, fontname="tiro", lineheight=1.2)
    used = 400 - spare if spare >= 0 else 400
    return y + used + 8


def _heading(page: pymupdf.Page, x: float, y: float, text: str, size: float = 12) -> float:
    page.insert_text((x, y + size), text, fontsize=size, fontname="tibo")
    return y + size + 8


def _page_one(page: pymupdf.Page) -> None:
    page.insert_text((90, 80), TITLE, fontsize=18, fontname="tibo")
    page.insert_text((200, 104), "Ada Example, Ben Sample", fontsize=11, fontname="tibo")
    page.insert_text((190, 120), "Institute of Placeholder Studies", fontsize=9, fontname="tiro")
    y = _heading(page, 140, 150, "Abstract")
    y = _para(page, LEFT, y, "This abstract states the claim of the toy paper. " * 5)
    y = _heading(page, LEFT[0], y + 4, "1 Introduction")
    y = _para(page, LEFT, y, FILLER * 2)
    # A mention of Table 1 in running text that happens to start a line: not a caption.
    page.insert_text((LEFT[0], y + 10), "the results as shown in", fontsize=10, fontname="tiro")
    page.insert_text(
        (LEFT[0], y + 22), "Table 1. The numbers there are discussed", fontsize=10, fontname="tiro"
    )
    page.insert_text(
        (LEFT[0], y + 34), "below and again in the conclusion of the", fontsize=10, fontname="tiro"
    )
    page.insert_text((LEFT[0], y + 46), "paper in some detail.", fontsize=10, fontname="tiro")
    y = _heading(page, RIGHT[0], 150, "2 Method")
    y = _para(page, RIGHT, y, FILLER)
    y = _heading(page, RIGHT[0], y, "2.1 Setup", size=10)
    text = f"Code is available at {CODE_URL} and the data at {DATA_URL}, both public. "
    y = _para(page, RIGHT, y, text + FILLER)
    page.insert_link(
        {
            "kind": pymupdf.LINK_URI,
            "from": pymupdf.Rect(RIGHT[0], y, RIGHT[1], y + 12),
            "uri": CODE_URL,
        }
    )
    page.insert_text((W / 2 - 3, H - 30), "1", fontsize=9, fontname="tiro")


def _table(page: pymupdf.Page, y: float) -> float:
    """Caption above a booktabs-style table spanning both columns; 'Ours' row bold."""
    page.insert_text(
        (LEFT[0], y),
        "Table 1: Accuracy and F1 of the toy models on the",
        fontsize=9,
        fontname="tiro",
    )
    page.insert_text((LEFT[0], y + 11), "synthetic benchmark.", fontsize=9, fontname="tiro")
    top = y + 20
    xs = [160.0, 300.0, 420.0]
    page.draw_line((140, top), (470, top), width=0.8)
    row_y = top + 14
    for k, row in enumerate(TABLE_ROWS):
        font = "tibo" if row[0] == "Ours" else "tiro"
        for x, cell in zip(xs, row, strict=True):
            page.insert_text((x, row_y), cell, fontsize=9, fontname=font)
        if k == 0:
            page.draw_line((140, row_y + 4), (470, row_y + 4), width=0.5)
        row_y += 14
    page.draw_line((140, row_y - 6), (470, row_y - 6), width=0.8)
    return row_y + 10


def _plot(page: pymupdf.Page, y: float) -> float:
    """A vector line chart in the left column, caption below."""
    x0, x1 = 80.0, 270.0
    bottom = y + 110
    page.draw_line((x0, y), (x0, bottom), width=0.6)
    page.draw_line((x0, bottom), (x1, bottom), width=0.6)
    pts = [(x0 + 10 * k, bottom - 8 - 5 * k + (k % 3) * 4) for k in range(19)]
    page.draw_polyline(pts, color=(0.1, 0.3, 0.8), width=1.0)
    for k, label in enumerate(["0", "5", "10"]):
        page.insert_text((x0 + 80 * k, bottom + 10), label, fontsize=7, fontname="helv")
    page.insert_text(
        (LEFT[0], bottom + 26),
        "Figure 1: Loss of the toy model over training",
        fontsize=9,
        fontname="tiro",
    )
    page.insert_text((LEFT[0], bottom + 37), "steps.", fontsize=9, fontname="tiro")
    return bottom + 45


def _image(page: pymupdf.Page, y: float) -> float:
    """A raster picture in the right column, caption below."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 30), False)
    for i in range(40):
        for j in range(30):
            pix.set_pixel(i, j, ((i * 6) % 256, (j * 8) % 256, 120))
    rect = pymupdf.Rect(340, y, 530, y + 110)
    page.insert_image(rect, pixmap=pix)
    page.insert_text(
        (RIGHT[0], y + 126),
        "Figure 2: Samples drawn from the toy generator.",
        fontsize=9,
        fontname="tiro",
    )
    return y + 140


def _page_two(page: pymupdf.Page) -> None:
    y = _table(page, 70)
    _plot(page, y + 10)
    _image(page, y + 10)
    y = _heading(page, LEFT[0], 420, "3 Conclusion")
    y = _para(page, LEFT, y, "The toy gate helps in Table 1 and Figure 1. " * 4)
    y = _heading(page, LEFT[0], y, "References")
    _para(page, LEFT, y, "[1] A. Person. A study of widgets. Journal of Toys, 2020.")
    y = _heading(page, RIGHT[0], 420, "A Extra Details")
    _para(page, RIGHT, y, "The appendix lists hyper-parameters of the toy runs. " * 3)
    page.insert_text((W / 2 - 3, H - 30), "2", fontsize=9, fontname="tiro")


def build_paper(path: Path) -> Path:
    doc = pymupdf.open()
    _page_one(doc.new_page(width=W, height=H))
    _page_two(doc.new_page(width=W, height=H))
    doc.save(path)
    doc.close()
    return path


def build_scanned(path: Path) -> Path:
    """One page that is only a picture: no text layer at all."""
    doc = pymupdf.open()
    page = doc.new_page(width=W, height=H)
    pix = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 60, 80), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    doc.save(path)
    doc.close()
    return path
