"""Table and figure captions: the anchors every float is found from.

A caption starts a block (or follows a finished sentence) with "Table 3:", "Tab. 3.",
"Figure 2:", "Fig. 2." and the like. The same words inside running text ("as shown in
Table 3. We ...") are rejected because they neither start a block nor carry a bold label,
and when a label is seen twice on a page the stronger candidate wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extractors.paper.layout import Box, Line, PageText, union

CAPTION_RE = re.compile(
    r"^(?P<kind>Table|TABLE|Tab\.|Figure|FIGURE|Fig\.|Fig)\s*"
    r"(?P<num>(?:[A-Z]\.?)?\d+(?:\.\d+)?|[IVXL]+)"
    r"(?P<sep>\s*[:.|]|\s+[-—–]\s)?"
)


@dataclass
class Caption:
    kind: str  # "table" | "figure"
    number: str
    page: int
    text: str
    bbox: Box
    lines: list[Line]
    score: int

    @property
    def label(self) -> str:
        return f"{'Table' if self.kind == 'table' else 'Figure'} {self.number}"


def find_captions(page: PageText, body: float) -> list[Caption]:
    """Captions on one page in reading order, one per (kind, number)."""
    order = [ln for ln in page.order if not ln.furniture]
    best: dict[tuple[str, str], Caption] = {}
    for i, line in enumerate(order):
        m = CAPTION_RE.match(line.text)
        if not m:
            continue
        score = _score(line, order[i - 1] if i else None, m)
        if score <= 0:
            continue
        kind = "table" if m.group("kind").lower().startswith("tab") else "figure"
        lines = _caption_lines(order, i, body)
        cap = Caption(
            kind=kind,
            number=m.group("num").rstrip("."),
            page=page.number,
            text=_join(lines),
            bbox=union(ln.bbox for ln in lines),
            lines=lines,
            score=score,
        )
        key = (kind, cap.number)
        if key not in best or best[key].score < score:
            best[key] = cap
    return sorted(best.values(), key=lambda c: order.index(c.lines[0]))


def _score(line: Line, prev: Line | None, m: re.Match[str]) -> int:
    label_bold = bool(line.spans) and line.spans[0].bold
    has_sep = m.group("sep") is not None
    rest = line.text[m.end() :].strip()
    if not has_sep and not (label_bold and (not rest or not line.bold)):
        return 0
    colon = has_sep and ":" in (m.group("sep") or "")
    score = 0
    if line.first_in_block:
        score += 2
    elif prev is not None and prev.block == line.block and prev.text.rstrip().endswith((".", ":")):
        # Set off from the line before (a sub-table's caption, a different size or a gap)?
        apart = abs(prev.size - line.size) > 0.5 or line.bbox[1] - prev.bbox[3] > 0.3 * line.size
        if colon or apart:
            score += 1
    if label_bold:
        score += 2
    if colon:
        score += 1
    # Running text that happens to start a line: no block start, no bold label.
    if score < 2:
        return 0
    return score


def _caption_lines(order: list[Line], i: int, body: float) -> list[Line]:
    """The caption line, the rest of its block, and adjoining blocks of the same set."""
    first = order[i]
    lines = [first]
    j = i + 1
    while j < len(order):
        ln = order[j]
        prev = lines[-1]
        same_block = ln.block == prev.block  # the rest of a block once it is caption
        gap = ln.bbox[1] - prev.bbox[3]
        close = -2 <= gap < 0.8 * max(prev.size, 4.0)
        # Continuation lines stay within the caption's measure (hanging indents allowed)
        # and read as text, not as a table row set right under the caption.
        aligned = (
            ln.bbox[0] >= first.bbox[0] - 3 and ln.bbox[2] <= first.bbox[2] + 3 and not ln.gappy
        ) or abs((ln.bbox[0] + ln.bbox[2]) - (prev.bbox[0] + prev.bbox[2])) < 6
        if CAPTION_RE.match(ln.text) and ln.first_in_block:
            break
        if same_block:
            # A short centred caption that MuPDF glued to the paragraph under it.
            if prev.text.rstrip().endswith(".") and ln.bbox[0] < first.bbox[0] - 10:
                break
            # The table's header row that MuPDF glued to a caption set right above it:
            # a caption ends where the table's first row begins.
            if ln.gappy and not prev.gappy:
                break
            lines.append(ln)
        elif close and aligned and abs(ln.size - first.size) < 0.6 and _continues(lines):
            lines.append(ln)
        else:
            break
        j += 1
    return lines


def _continues(lines: list[Line]) -> bool:
    """A caption that stopped mid-sentence (or right after its label) goes on below."""
    text = lines[-1].text.rstrip()
    return (len(lines) == 1 and CAPTION_RE.fullmatch(text) is not None) or not text.endswith(".")


def _join(lines: list[Line]) -> str:
    out = ""
    for ln in lines:
        t = ln.text.strip()
        if not out:
            out = t
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and t[:1].islower():
            out = out[:-1] + t
        else:
            out += " " + t
    return out
