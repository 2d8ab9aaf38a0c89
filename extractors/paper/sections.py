"""Front matter, section headings and section text in reading order.

Headings are recognised from their numbering ("3", "3.1", "A.2", "Appendix B") together with
their typography (bold, larger than the body, or set in capitals), checked against the
numbering sequence so that a bold "2" in a table does not open a section; well-known
unnumbered headings (Abstract, References, Limitations, ...) count too, and the PDF outline,
when the paper has one, adds headings the typography missed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from expcurate.records.names import squash
from extractors.paper.layout import Line, PageText

NUMBERED = re.compile(
    r"^(?:(?P<app>Appendix|APPENDIX)\s+)?"
    r"(?P<num>(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,3})(?:\.|:)?\s+"
    r"(?P<title>[A-Z(\"'“‘][^\n]{0,150})$"
)
APPENDIX_ONLY = re.compile(r"^(?:Appendix|APPENDIX)\s+(?P<num>[A-Z])\.?$")
KNOWN = {
    "abstract",
    "introduction",
    "related work",
    "conclusion",
    "conclusions",
    "references",
    "bibliography",
    "acknowledgments",
    "acknowledgements",
    "acknowledgment",
    "acknowledgement",
    "appendix",
    "appendices",
    "limitations",
    "ethics statement",
    "ethical considerations",
    "broader impact",
    "broader impacts",
    "impact statement",
    "reproducibility statement",
    "supplementary material",
    "author contributions",
    "discussion",
}
REFERENCES = {"references", "bibliography", "reference"}
APPENDIX_WORDS = {"appendix", "appendices", "supplementary material", "supplementary materials"}


@dataclass
class Heading:
    index: int  # position in the document's reading order
    page: int
    number: str
    title: str
    level: int
    line: Line
    appendix: bool = False
    tail: str = ""  # text of a run-in heading's line after the heading itself
    span: int = 1  # lines the heading occupies (long titles wrap)

    @property
    def is_references(self) -> bool:
        return not self.number and self.title.lower().rstrip(".:") in REFERENCES


norm = squash


def reading_order(pages: list[PageText]) -> list[tuple[int, Line]]:
    return [(p.number, ln) for p in pages for ln in p.order if not ln.furniture]


def find_headings(
    order: list[tuple[int, Line]], body: float, toc: list[tuple[int, str, int]]
) -> list[Heading]:
    """Headings in reading order (numbered, well-known unnumbered, and from the outline)."""
    cands: list[Heading] = []
    for i, (page, line) in enumerate(order):
        prev = order[i - 1][1] if i else None
        nxt = order[i + 1][1] if i + 1 < len(order) else None
        h = _candidate(i, page, line, body, prev, nxt)
        if h is not None:
            cands.append(h)
    heads = _check_sequence(cands)
    heads = _add_styled(heads, order, body)
    heads = _add_from_toc(heads, order, body, toc)
    abstract = next((h.index for h in heads if h.title.lower() == "abstract"), -1)
    heads = [h for h in heads if h.index >= abstract]  # nothing above the abstract (authors)
    _mark_appendix(heads)
    return heads


def _styled(line: Line, body: float) -> bool:
    if line.bold or line.size >= body + 0.9:
        return True
    letters = [c for c in line.text if c.isalpha()]
    caps = len(letters) >= 3 and sum(c.isupper() for c in letters) >= 0.9 * len(letters)
    # Small capitals: the capitals are full size, the rest of the letters smaller.
    top = max(sp.size for sp in line.spans)
    return caps and max(line.size, top) >= body - 0.2


def _bold_prefix(line: Line) -> tuple[str, str]:
    """A run-in heading: the bold head of a line and the plain text after it."""
    head: list[str] = []
    for k, s in enumerate(line.spans):
        if not s.bold:
            tail = " ".join(x.text.strip() for x in line.spans[k:])
            return " ".join(head).strip(), tail.strip()
        head.append(s.text.strip())
    return " ".join(head).strip(), ""


def _wrapped(line: Line, nxt: Line, text: str) -> str:
    """The heading's second line: same block, same type, right below, starting no further left."""
    same = abs(nxt.size - line.size) < 0.3 and nxt.bold == line.bold and not nxt.furniture
    below = 0 <= nxt.bbox[1] - line.bbox[3] < 0.6 * line.size
    if same and below and len(nxt.text.split()) <= 8 and not NUMBERED.match(nxt.text):
        return f"{text} {nxt.text.strip()}"
    return text


def _candidate(
    i: int, page: int, line: Line, body: float, prev: Line | None, nxt: Line | None = None
) -> Heading | None:
    text = line.text.strip()
    if len(text) > 160 or line.size < body - 1.2 or not text:
        return None
    if not (line.spans[0].bold or text[0].isdigit() or text[0].isupper()):
        return None  # cheap exit for ordinary lines
    starts = line.first_in_block or (prev is not None and prev.bbox[3] <= line.bbox[1] - 2)
    if not starts:
        return None
    head, tail = _bold_prefix(line)
    if head and tail and line.size < body + 0.9:
        # A bold lead-in followed by plain text on the same line: a run-in heading.
        if len(head.split()) > 12:
            return None
        if NUMBERED.match(head) and not head.endswith((".", ":")):
            return None  # "1. Value embeddings (...)": a bold list item, not a heading
        text = head
    elif _styled(line, body):
        tail = ""
    else:
        return None
    m = APPENDIX_ONLY.match(text)
    if m:
        return Heading(i, page, m.group("num"), "Appendix " + m.group("num"), 1, line, True, tail)
    m = NUMBERED.match(text)
    span = 1
    if m and not tail and nxt is not None:
        joined = _wrapped(line, nxt, text)  # a long heading set on two lines
        if joined != text:
            text, span = joined, 2
            m = NUMBERED.match(text)
    if m:
        title = m.group("title").strip()
        words = title.split()
        if len(words) > 16 or title.endswith((",", ";")) or not re.search(r"[A-Za-z]{2}", title):
            return None
        if re.fullmatch(r"[\d.\s%×x±]+", title):
            return None
        num = m.group("num")
        level = num.count(".") + 1
        return Heading(i, page, num, title, level, line, bool(m.group("app")), tail, span)
    key = text.lower().rstrip(".:").strip()
    if key in KNOWN or key.startswith("appendix"):
        return Heading(i, page, "", text.rstrip(".:").strip(), 1, line, False, tail)
    return None


def _check_sequence(cands: list[Heading]) -> list[Heading]:
    """Keep numbered headings that continue the numbering; drop stray bold numbers."""
    out: list[Heading] = []
    top = ""  # current top-level number
    seen_top: set[str] = set()
    after_refs = False
    for h in cands:
        if not h.number:
            out.append(h)
            after_refs = after_refs or h.is_references or h.title.lower() in APPENDIX_WORDS
            continue
        parts = h.number.split(".")
        first = parts[0]
        if len(parts) == 1:
            if not _next_top(top, first, after_refs or h.appendix) or first in seen_top:
                continue
            top = first
            seen_top.add(first)
            out.append(h)
        elif first == top:
            out.append(h)
    return out


def _all_bold(line: Line) -> bool:
    return all(s.bold for s in line.spans)


def _style(line: Line) -> tuple[float, bool]:
    return (round(line.size * 2) / 2, line.bold)


def _plain_heading(line: Line) -> bool:
    """Short, capitalised, unpunctuated: how an unnumbered heading looks."""
    text = line.text.strip()
    words = text.split()
    return (
        0 < len(words) <= 10
        and text[:1].isupper()
        and not text.endswith((".", ",", ";", ":"))
        and not re.search(r"[:;=]|\d{3,}", text)
        and sum(c.isalpha() for c in text) >= 0.7 * len(text.replace(" ", ""))
    )


def _add_styled(heads: list[Heading], order: list[tuple[int, Line]], body: float) -> list[Heading]:
    """Unnumbered papers (AAAI and the like): lines set like the known headings are headings.

    The style of "Related Work", "Conclusion", "References" (or of numbered top-level
    headings) marks every other top-level heading; when the paper numbers almost nothing,
    standalone bold lines between body size and that style are second-level headings.
    """
    anchors = {
        _style(h.line)
        for h in heads
        if h.level == 1
        and not h.tail
        and (_all_bold(h.line) or h.line.size >= body + 0.9)
        and h.title.lower() != "abstract"
    }
    if not anchors:
        return heads
    top_size = max(size for size, _ in anchors)
    numbered = sum(1 for h in heads if h.number)
    have = {id(order[h.index + k][1]) for h in heads for k in range(h.span)}
    seconds: dict[tuple[float, bool], list[int]] = {}
    added: list[Heading] = []
    for i, (page, line) in enumerate(order):
        if id(line) in have or not line.first_in_block or not _plain_heading(line):
            continue
        nxt = order[i + 1][1] if i + 1 < len(order) else None
        if nxt is not None and nxt.block == line.block and nxt.bbox[1] < line.bbox[3] - 1:
            continue  # more text on the same row: a run-in paragraph label
        style = _style(line)
        if line.bold and not _all_bold(line):
            continue
        if style in anchors:
            added.append(Heading(i, page, "", line.text.strip(), 1, line))
        elif numbered < 3 and line.bold and body + 0.4 < line.size < top_size:
            seconds.setdefault(style, []).append(i)
    for idxs in seconds.values():
        if len(idxs) >= 2:
            added += [
                Heading(i, order[i][0], "", order[i][1].text.strip(), 2, order[i][1]) for i in idxs
            ]
    return sorted(heads + added, key=lambda h: h.index)


def _next_top(prev: str, num: str, appendix: bool) -> bool:
    if num.isdigit():
        n = int(num)
        if not prev:
            return n <= 2
        if prev.isdigit():
            return int(prev) < n <= int(prev) + 2 or (appendix and n == 1)
        return False
    # letters: appendices start at A (or continue the letter sequence)
    if not prev or prev.isdigit():
        return num == "A" or (appendix and num in "AB")
    return 0 < ord(num) - ord(prev) <= 2


def _add_from_toc(
    heads: list[Heading],
    order: list[tuple[int, Line]],
    body: float,
    toc: list[tuple[int, str, int]],
) -> list[Heading]:
    """Outline entries whose line the typography test missed become headings too."""
    if not toc:
        return heads
    have = {id(h.line) for h in heads}
    by_page: dict[int, list[int]] = {}
    for i, (page, _) in enumerate(order):
        by_page.setdefault(page, []).append(i)
    added: list[Heading] = []
    for level, title, page in toc:
        key = norm(re.sub(r"^\s*(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)*)\.?\s+", "", title))
        if len(key) < 3:
            continue
        for i in by_page.get(page, []):
            line = order[i][1]
            text = line.text.strip()
            if len(text) > 160:
                continue
            m = NUMBERED.match(text)
            num, rest = (m.group("num"), m.group("title")) if m else ("", text)
            if norm(rest) != key:
                continue
            if id(line) not in have:
                lvl = num.count(".") + 1 if num else level
                added.append(Heading(i, page, num, rest.strip(), lvl, line))
                have.add(id(line))
            break
    return sorted(heads + added, key=lambda h: h.index)


def _mark_appendix(heads: list[Heading]) -> None:
    appendix = False
    for h in heads:
        if h.is_references:
            appendix = True  # what follows the references is back matter
            continue
        if h.title.lower().startswith(("appendix", "appendices", "supplementary")):
            appendix = True
        if h.number[:1].isalpha() and h.level >= 1 and h.number[:1].isupper():
            appendix = True
        h.appendix = h.appendix or appendix


def join_lines(lines: list[Line]) -> str:
    """Lines into flowing text, undoing end-of-line hyphenation."""
    out: list[str] = []
    for ln in lines:
        t = ln.text.strip()
        if not t:
            continue
        prev = out[-1] if out else ""
        if prev.endswith("-") and len(prev) > 1 and prev[-2].isalpha() and t[:1].islower():
            out[-1] = prev[:-1] + t
            continue
        out.append(t)
    return " ".join(out)
