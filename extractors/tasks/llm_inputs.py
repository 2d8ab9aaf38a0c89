"""What the drafting model is shown of a parsed paper, rendered as compact text.

Cost scales with prompt length, so every piece is clipped to a budget: a section outline for
classification, the setup context for drafting (nearest sections first), and the tables and
figures a section cites, as caption plus cell rows. The budgets are generous for one section
of a paper and small next to a whole paper.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypeVar

from expcurate.records import Figure, ParsedPaper, Section, Table
from extractors.tasks.claims import claims_for, find_claims, headline_labels

T = TypeVar("T", Table, Figure)

PREVIEW_CHARS = 240  # per section in the classification outline
SECTION_CHARS = 12_000  # the section a task is drafted from
CONTEXT_CHARS = 8_000  # all setup context sections together
CONTEXT_SECTION_CHARS = 2_500  # any one of them
ABSTRACT_CHARS = 1_500
TABLE_ROWS = 60
TABLE_CHARS = 4_000
CELL_CHARS = 40
FINDINGS_PER_ITEM = 3  # the paper's sentences about one table or figure
FINDING_CHARS = 400

_CITE = re.compile(
    r"\b(Tables?|Tabs?\.|Figures?|Figs?\.)\s*"
    r"((?:[A-Z]\.?)?\d+[a-z]?(?:\s*(?:,|and|&|-|–|to)\s*(?:[A-Z]\.?)?\d+[a-z]?)*)"
)
_LABEL = re.compile(r"^\s*(tab(?:le)?s?\.?|fig(?:ure)?s?\.?)\s*((?:[A-Z]\.?)?\d+)", re.I)


def clip(text: str, limit: int) -> str:
    text = re.sub(r"[ \t]+", " ", text).strip()
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " […]"


def normalize_label(label: str) -> str | None:
    """'Tab. 3', 'table 3', 'Fig.2' -> 'Table 3' / 'Figure 2'; None when not such a label."""
    m = _LABEL.match(label)
    if not m:
        return None
    kind = "Table" if m.group(1).lower().startswith("tab") else "Figure"
    return f"{kind} {m.group(2).replace('.', '')}"


def cited_labels(text: str) -> list[str]:
    """Table and figure labels a text cites, in order of first mention ('Tables 2 and 3' too)."""
    out: list[str] = []
    for m in _CITE.finditer(text):
        kind = "Table" if m.group(1).lower().startswith("tab") else "Figure"
        numbers: list[str] = []
        for a, sep, b in re.findall(
            r"((?:[A-Z]\.?)?\d+)[a-z]?(?:\s*(-|–|to)\s*((?:[A-Z]\.?)?\d+))?", m.group(2)
        ):
            numbers.append(a.replace(".", ""))
            if sep and a.isdigit() and b.isdigit() and 0 < int(b) - int(a) <= 6:
                numbers += [str(n) for n in range(int(a) + 1, int(b) + 1)]
            elif sep and b:
                numbers.append(b.replace(".", ""))
        out += [f"{kind} {n}" for n in numbers]
    return list(dict.fromkeys(out))


def items_for(
    section: Section, paper: ParsedPaper, text: str | None = None, *, placed: bool = True
) -> tuple[list[Table], list[Figure]]:
    """The tables and figures `text` (default: the section's) cites, then those placed in it."""
    cited = cited_labels(section.text if text is None else text)
    tables = {normalize_label(t.label) or t.label: t for t in paper.tables}
    figures = {normalize_label(f.label) or f.label: f for f in paper.figures}
    got_tables = [tables[label] for label in cited if label in tables]
    got_figures = [figures[label] for label in cited if label in figures]
    if placed:
        got_tables += [t for t in paper.tables if t.section == section.heading]
        got_figures += [f for f in paper.figures if f.section == section.heading]
    return _first_of_each(got_tables), _first_of_each(got_figures)


def _first_of_each(items: list[T]) -> list[T]:
    """One item per label, in order: a float is often both cited and placed in a section."""
    kept: dict[str, T] = {}
    for item in items:
        kept.setdefault(item.label, item)
    return list(kept.values())


def chunks(text: str, limit: int = SECTION_CHARS) -> list[str]:
    """A long section in pieces of at most `limit` characters, cut between paragraphs.

    Truncating instead would silently drop the experiments reported late in a long section
    (or in a section that swallowed its successors because their headings were not found).
    """
    text = text.strip()
    if len(text) <= limit:
        return [text]
    pieces = [p for p in re.split(r"\n\s*\n|(?<=[.!?])\s+(?=[A-Z])", text) if p.strip()]
    out: list[str] = []
    current = ""
    for piece in pieces:
        while len(piece) > limit:  # one enormous sentence: hard cut at a space
            cut = piece.rfind(" ", 0, limit)
            cut = cut if cut > 0 else limit
            if current:
                out.append(current)
                current = ""
            out.append(piece[:cut])
            piece = piece[cut:].lstrip()
        if current and len(current) + 1 + len(piece) > limit:
            out.append(current)
            current = ""
        current = f"{current} {piece}".strip() if current else piece
    if current:
        out.append(current)
    return out


def _captioned(item: Table | Figure) -> str:
    caption = " ".join(item.caption.split())
    if normalize_label(caption) == item.label:
        return caption
    return f"{item.label}: {caption}"


def render_table(table: Table) -> str:
    lines = [_captioned(table)]
    for row in table.rows[:TABLE_ROWS]:
        lines.append("| " + " | ".join(clip(cell, CELL_CHARS) for cell in row) + " |")
    if len(table.rows) > TABLE_ROWS:
        lines.append(f"(… {len(table.rows) - TABLE_ROWS} more rows)")
    if not table.rows:
        lines.append("(cells could not be read)")
    return clip("\n".join(lines), TABLE_CHARS) if len(lines) > 1 else lines[0]


def render_figure(figure: Figure) -> str:
    return _captioned(figure)


def render_findings(paper: ParsedPaper, items: list[Table | Figure]) -> str:
    """What the paper's own sentences state about the given tables and figures, headline
    results marked: the claims a task should be built around (the same inputs the offline
    strategy drafts from)."""
    claims = find_claims(paper)
    headline = set(headline_labels(paper))
    lines = []
    for item in items:
        found = claims_for(item.label, claims)[:FINDINGS_PER_ITEM]
        mark = " (a headline result of the paper)" if item.label in headline else ""
        if found:
            lines.append(f"{item.label}{mark}:")
            lines += [f"- {clip(c.text, FINDING_CHARS)}" for c in found]
        else:
            lines.append(f"{item.label}{mark}: no sentence of the paper states a finding about it")
    if not lines:
        return ""
    return "Findings the paper states about them (build each task around one):\n" + "\n".join(lines)


def outline(paper: ParsedPaper) -> str:
    """One line per section for the classification call."""
    lines = []
    for i, s in enumerate(paper.sections):
        notes = ["appendix"] if s.appendix else []
        notes.append(f"{len(s.text)} chars")
        tables, figures = items_for(s, paper)
        cites = [x.label for x in tables] + [x.label for x in figures]
        if cites:  # a results section is recognisable by what it cites, whatever its title
            notes.append("cites " + ", ".join(cites[:8]) + (" …" if len(cites) > 8 else ""))
        preview = clip(s.text, PREVIEW_CHARS) or "(no text of its own)"
        lines.append(f"[{i}] {s.heading} ({'; '.join(notes)}): {preview}")
    return "\n".join(lines)


def context_text(paper: ParsedPaper, context: list[int], near: int) -> str:
    """The setup sections' text within budget, the sections nearest to `near` first."""
    chosen: dict[int, str] = {}
    used = 0
    for i in sorted(context, key=lambda i: (paper.sections[i].appendix, abs(i - near))):
        if used >= CONTEXT_CHARS:
            break
        s = paper.sections[i]
        body = clip(s.text, min(CONTEXT_SECTION_CHARS, CONTEXT_CHARS - used))
        if body:
            chosen[i] = f"### {s.heading}\n{body}"
            used += len(body)
    return "\n\n".join(chosen[i] for i in sorted(chosen))


def image_path(item: Table | Figure, images_root: Path | None) -> Path | None:
    """The crop's file, when the parse stage wrote one and it is still there."""
    if not item.image:
        return None
    path = Path(item.image)
    if not path.is_absolute():
        if images_root is None:
            return None
        path = images_root / path
    return path if path.is_file() else None
