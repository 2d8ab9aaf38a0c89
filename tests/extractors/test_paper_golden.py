"""The parse of our own sample paper, field by field, against a golden file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extractors.paper import parse_pdf
from tests.golden import check_golden

SAMPLE_PDF = Path(__file__).resolve().parents[2] / "data" / "sample" / "paper.pdf"


def _box(bbox: Any) -> list[float] | None:
    return [round(v, 1) for v in bbox] if bbox else None


def test_sample_parse_matches_golden() -> None:
    """Sections, table cells and bold marks, figures, links: any change shows up as a diff."""
    paper = parse_pdf(SAMPLE_PDF, None)
    data = {
        "title": paper.title,
        "authors": paper.authors,
        "abstract": paper.abstract,
        "pages": paper.pages,
        "status": paper.status.value,
        "errors": [e.model_dump(mode="json") for e in paper.errors],
        "sections": [
            {
                "number": s.number,
                "title": s.title,
                "level": s.level,
                "page": s.page,
                "appendix": s.appendix,
                "chars": len(s.text),
            }
            for s in paper.sections
        ],
        "tables": [
            {
                "label": t.label,
                "caption": t.caption,
                "page": t.page,
                "bbox": _box(t.bbox),
                "rows": t.rows,
                "bold": t.bold,
                "section": t.section,
            }
            for t in paper.tables
        ],
        "figures": [
            {
                "label": f.label,
                "caption": f.caption,
                "page": f.page,
                "bbox": _box(f.bbox),
                "kind": f.kind,
                "section": f.section,
                "axes": [a.model_dump() for a in f.axes],
                "ticks": f.ticks,
                "legend": f.legend,
            }
            for f in paper.figures
        ],
        "links": paper.links,
    }
    check_golden("sample_parsed.json", data)
