"""Vector drawings and raster images of a page, reduced to what floats need.

Tables are bounded by horizontal rules (booktabs or grid lines); figures are clusters of
paths and images. Both are read lazily, only on pages that carry a caption, because
`get_cdrawings` and `get_image_info` each re-interpret the page's content stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from extractors.paper.layout import Box

_WHITE = (1.0, 1.0, 1.0)


@dataclass(slots=True)
class Rule:
    """A horizontal line segment: a table rule candidate."""

    x0: float
    x1: float
    y: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0


@dataclass
class Graphics:
    """Rules, shapes and images of one page; `page` allows a clip-aware second look."""

    rules: list[Rule] = field(default_factory=list)
    vrules: list[Box] = field(default_factory=list)  # vertical segments, as thin boxes
    shapes: list[Box] = field(default_factory=list)  # visible vector paths
    images: list[Box] = field(default_factory=list)  # raster images
    curves: list[Box] = field(default_factory=list)  # paths with slanted or curved pieces (plots)
    cover: Box | None = None  # an image covering the whole page (a scan)
    page: pymupdf.Page | None = None
    _visible_curves: list[Box] | None = None

    def visible_curves(self) -> list[Box]:
        """Curves that survive their clip paths (figures are often drawn from clipped
        pieces lying anywhere on the page). Costs ~5x a plain read, hence on demand."""
        if self._visible_curves is None:
            self._visible_curves = _clipped_curves(self.page) if self.page else list(self.curves)
        return self._visible_curves


def read_graphics(page: pymupdf.Page) -> Graphics:
    g = Graphics(page=page)
    pw, ph = page.rect.width, page.rect.height
    page_area = pw * ph
    for path in page.get_cdrawings():
        _add_path(g, path, page_area)
    for info in page.get_image_info():
        x0, y0, x1, y1 = info["bbox"]
        x0, y0, x1, y1 = max(x0, 0.0), max(y0, 0.0), min(x1, pw), min(y1, ph)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        if (x1 - x0) * (y1 - y0) >= 0.85 * page_area:
            g.cover = (x0, y0, x1, y1)
            continue
        g.images.append((x0, y0, x1, y1))
    # Paths can lie outside the page (clipped figure content); they are not visible.
    g.rules = sorted(
        (r for r in g.rules if 0 <= r.y <= ph and r.x1 > 0 and r.x0 < pw), key=lambda r: r.y
    )
    g.vrules = [v for v in g.vrules if v[0] >= 0 and v[0] <= pw and v[3] > 0 and v[1] < ph]
    g.shapes = [s for s in g.shapes if s[2] > 0 and s[0] < pw and s[3] > 0 and s[1] < ph]
    return g


def _visible(path: dict) -> bool:
    kind = path.get("type", "")
    stroke = "s" in kind and path.get("color") not in (None, _WHITE)
    stroke = stroke and _opacity(path, "stroke_opacity") > 0.05
    fill = "f" in kind and path.get("fill") not in (None, _WHITE)
    fill = fill and _opacity(path, "fill_opacity") > 0.05
    return stroke or fill


def _opacity(path: dict, key: str) -> float:
    value = path.get(key)
    return 1.0 if value is None else float(value)


def _add_path(g: Graphics, path: dict, page_area: float) -> None:
    if not _visible(path):
        return
    x0, y0, x1, y1 = path["rect"]
    w, h = x1 - x0, y1 - y0
    if w * h >= 0.6 * page_area:  # page backgrounds and frames
        return
    stroked = "s" in path.get("type", "")
    for item in path.get("items", []):
        op = item[0]
        if op == "l":
            (ax, ay), (bx, by) = item[1], item[2]
            if abs(ay - by) < 0.8 and abs(bx - ax) >= 4:
                g.rules.append(Rule(min(ax, bx), max(ax, bx), (ay + by) / 2))
            elif abs(ax - bx) < 0.8 and abs(by - ay) >= 4:
                g.vrules.append((ax, min(ay, by), bx, max(ay, by)))
        elif op == "re":
            rx0, ry0, rx1, ry1 = item[1]
            rw, rh = abs(rx1 - rx0), abs(ry1 - ry0)
            lo, hi = min(rx0, rx1), max(rx0, rx1)
            top, bottom = min(ry0, ry1), max(ry0, ry1)
            if rh < 2.0 and rw >= 4:
                g.rules.append(Rule(lo, hi, (top + bottom) / 2))
            elif rw < 2.0 and rh >= 4:
                g.vrules.append((lo, top, hi, bottom))
            elif stroked and rw >= 4:
                g.rules.append(Rule(lo, hi, top))
                g.rules.append(Rule(lo, hi, bottom))
                if rh >= 4:
                    g.vrules.append((lo, top, lo, bottom))
                    g.vrules.append((hi, top, hi, bottom))
    g.shapes.append((x0, y0, x1, y1))
    if _is_curve(path):
        g.curves.append((x0, y0, x1, y1))


def _is_curve(path: dict) -> bool:
    """Chart lines: open, unfilled strokes with curved or slanted pieces. Rounded boxes
    (closed or filled) and axis-parallel rules are not."""
    if "f" in path.get("type", "") or path.get("closePath"):
        return False
    for item in path.get("items", []):
        if item[0] in ("c", "qu"):
            return True
        if item[0] == "l":
            (ax, ay), (bx, by) = item[1], item[2]
            if abs(ax - bx) >= 0.8 and abs(ay - by) >= 0.8:
                return True
    return False


def _clipped_curves(page: pymupdf.Page) -> list[Box]:
    """Curves that are visible once the clip paths in force around them are applied."""
    out: list[Box] = []
    clips: list[tuple[int, pymupdf.Rect]] = []
    for item in page.get_cdrawings(extended=True):
        level = item.get("level", 0)
        while clips and clips[-1][0] >= level:
            clips.pop()
        kind = item.get("type")
        if kind == "clip":
            clips.append((level, pymupdf.Rect(item["scissor"])))
            continue
        if kind == "group" or not _visible(item) or not _is_curve(item):
            continue
        rect = pymupdf.Rect(item["rect"])
        for _, scissor in clips:
            rect = rect & scissor
        if not rect.is_empty and rect.width * rect.height >= 0:
            out.append((rect.x0, rect.y0, rect.x1, rect.y1))
    return out
