"""Title, authors and abstract from the first page(s).

The title is the largest type on page 1 (its lines joined); the authors are the bold
lines between title and abstract (names are set bold in nearly every template), else
the first line under the title; the abstract runs from an "Abstract" heading (or an inline
"Abstract—"/"Abstract." lead) to the first section heading.
"""

from __future__ import annotations

import re

from extractors.paper.layout import Line, PageText
from extractors.paper.sections import NUMBERED, Heading, join_lines

_INLINE_ABSTRACT = re.compile(r"^\s*(abstract|summary)\s*[.:—–-]\s*(?P<rest>\S.*)$", re.I)
_MARKS = re.compile(r"[∗*†‡§¶♠♣♥♦⋆✉]+")


def find_title(page: PageText, body: float, skip: set[int]) -> tuple[str, list[Line]]:
    """Largest type in the top half of page 1, outside figures (whose labels can be big)."""
    lines = [
        ln
        for ln in page.order
        if not ln.furniture
        and id(ln) not in skip
        and ln.bbox[1] < 0.5 * page.height
        and sum(c.isalpha() for c in ln.text) >= 3
        and not ln.text.lower().startswith(("arxiv", "published as", "under review"))
        and not (ln.text[:1].isdigit() and NUMBERED.match(ln.text))  # "1 Introduction"
    ]
    if not lines:
        return "", []
    top = max(ln.size for ln in lines)
    if top < body + 1.0:
        return "", []
    ordered = sorted(lines, key=lambda ln: ln.bbox[1])
    start = next(k for k, ln in enumerate(ordered) if ln.size >= top - 0.3)
    title = [ordered[start]]
    for ln in ordered[start + 1 :]:
        gap = ln.bbox[1] - title[-1].bbox[3]
        if ln.size >= 0.75 * top and ln.size > body + 0.5 and gap < 0.9 * top:
            title.append(ln)
        else:
            break
    text = " ".join(ln.text.strip() for ln in title)
    return _MARKS.sub("", text).strip(), title


def find_authors(page: PageText, title: list[Line], stop_y: float) -> str:
    if not title:
        return ""
    below = sorted(
        (
            ln
            for ln in page.order
            if not ln.furniture and title[-1].bbox[3] <= ln.bbox[1] < stop_y and ln not in title
        ),
        key=lambda ln: (ln.bbox[1], ln.bbox[0]),
    )
    names: list[str] = []
    bold_seen = False
    for ln in below[:30]:
        parts = _name_parts(ln, bold_only=True)
        if parts:
            bold_seen = True
            names += parts
    if not bold_seen and below:
        # Names set larger than the affiliations under them; else the lines down to
        # the first affiliation (a line led by a superscript index, or naming a place).
        big = max(ln.size for ln in below[:30])
        lines = [ln for ln in below[:30] if ln.size >= big - 0.3 and not _affiliation(ln)]
        if len(lines) == len(below[:30]):
            lines = []
            for ln in below[:30]:
                if _affiliation(ln):
                    break
                lines.append(ln)
        for ln in lines or below[:1]:
            names += _name_parts(ln, bold_only=False)
    seen: set[str] = set()
    out = []
    for n in names:
        n = n.strip(" ,;")
        if n and n.lower() not in seen and "@" not in n and not n.lower().startswith("abstract"):
            seen.add(n.lower())
            out.append(n)
    return ", ".join(out)[:600]


_PLACE = re.compile(
    r"universit|institut|laborator|\blab\b|college|school|department|academy|"
    r"\binc\b|corporation|research|centre|center|google|microsoft|\bmeta\b|@|\{",
    re.I,
)


def _affiliation(line: Line) -> bool:
    first = line.spans[0]
    led_by_index = first.size < 0.8 * line.size and first.text.strip()[:1].isdigit()
    return led_by_index or bool(_PLACE.search(line.text))


def _name_parts(line: Line, bold_only: bool) -> list[str]:
    """Pieces of a line separated by wide gaps; superscript marks dropped."""
    parts: list[str] = []
    current = ""
    last_x = None
    for s in line.spans:
        if s.size < 0.8 * line.size:  # affiliation numbers, footnote marks
            continue
        if bold_only and not s.bold:
            continue
        t = _MARKS.sub("", s.text).strip()
        if not t:
            continue
        if last_x is not None and s.bbox[0] - last_x > 1.5 * s.size:
            parts.append(current)
            current = t
        else:
            current = f"{current} {t}".strip()
        last_x = s.bbox[2]
    if current:
        parts.append(current)
    out: list[str] = []
    for p in parts:
        out += [x.strip() for x in re.split(r",|\band\b", p) if x.strip()]
    return out


def find_abstract(order: list[tuple[int, Line]], heads: list[Heading]) -> tuple[str, int, int]:
    """Abstract text and the reading-order span it occupies (start, end)."""
    start = -1
    lead = ""
    for h in heads:
        if h.title.lower().rstrip(".:") == "abstract":
            start = h.index + h.span
            lead = h.tail
            break
    if start < 0:
        for i, (page, ln) in enumerate(order):
            if page > 2:
                break
            m = _INLINE_ABSTRACT.match(ln.text)
            if m and ln.first_in_block:
                start, lead = i + 1, m.group("rest")
                break
    if start < 0:
        return _leading_prose(order, heads)
    end = next(
        (h.index for h in heads if h.index >= start and h.title.lower() != "abstract"),
        min(len(order), start + 60),
    )
    lines = [ln for _, ln in order[start:end]]
    text = join_lines(lines)
    if lead:
        text = f"{lead} {text}".strip()
    for stop in ("Keywords:", "Index Terms", "CCS Concepts", "Keywords"):
        k = text.find(stop)
        if k > 200:
            text = text[:k].strip()
    return text, start - (1 if lead else 0), end


def _leading_prose(order: list[tuple[int, Line]], heads: list[Heading]) -> tuple[str, int, int]:
    """No "Abstract" label: the paragraph(s) of page 1 right before the first heading."""
    first = next((h.index for h in heads), len(order))
    if not order or first == 0 or order[first - 1][0] != order[0][0]:
        return "", -1, -1
    blocks: list[list[int]] = []
    for i in range(first):
        if order[i][0] != order[0][0]:
            continue
        if blocks and order[blocks[-1][-1]][1].block == order[i][1].block:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    chosen: list[int] = []
    for idxs in reversed(blocks):
        lines = [order[i][1] for i in idxs]
        words = sum(len(ln.text.split()) for ln in lines)
        if len(lines) >= 3 and words >= 6 * len(lines):
            chosen = idxs + chosen
        elif chosen:
            break
    if not chosen:
        return "", -1, -1
    return join_lines([order[i][1] for i in chosen]), chosen[0], chosen[-1] + 1
