"""The paper side: where it came from (ingest), what it says (parse), and paper lists."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from expcurate.records.results import StageResult

BBox = tuple[float, float, float, float]


class IngestResult(StageResult):
    paper_id: str
    pdf_path: str = ""
    pdf_url: str = ""
    pdf_sha256: str = ""
    repo_path: str = ""
    repo_url: str = ""
    commit: str = ""


class Section(BaseModel):
    number: str = ""
    title: str
    level: int = 1
    page: int = 1
    text: str = ""
    appendix: bool = False

    @property
    def heading(self) -> str:
        return f"{self.number} {self.title}".strip()


class Table(BaseModel):
    label: str  # "Table 3"
    caption: str
    page: int
    bbox: BBox | None = None
    rows: list[list[str]] = Field(default_factory=list)
    bold: list[list[bool]] = Field(default_factory=list)
    image: str = ""
    section: str = ""  # heading of the section the table sits in
    # How the cells were read: "words" (positions), "find_tables" (PyMuPDF's finder, when
    # the word reading looked wrong), "lines" (one cell per run of words), "" (not read).
    reader: str = ""
    header_rows: int = 0  # leading rows that are column titles; 0: not known
    blocks: list[int] = Field(default_factory=list)  # rows opening the body's later blocks
    doubts: list[str] = Field(default_factory=list)  # why the reading may be wrong

    @property
    def number(self) -> str:
        return self.label.split()[-1] if self.label else ""


class Axis(BaseModel):
    """An axis of a plot, as printed: its title and the tick labels along it."""

    orientation: Literal["x", "y"]
    label: str
    ticks: list[str] = Field(default_factory=list)


class Figure(BaseModel):
    label: str  # "Figure 2"
    caption: str
    page: int
    bbox: BBox | None = None
    image: str = ""
    kind: Literal["raster", "vector", "mixed", "unknown"] = "unknown"
    section: str = ""
    # Text printed inside the figure (vector and mixed figures only; a raster has none):
    axes: list[Axis] = Field(default_factory=list)
    ticks: int = 0  # numbers printed inside: tick labels of plots
    legend: list[str] = Field(default_factory=list)  # other short labels: series, panels


class ParsedPaper(StageResult):
    title: str = ""
    authors: str = ""
    abstract: str = ""
    pages: int = 0
    sections: list[Section] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    figures: list[Figure] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)
    references: str = ""

    def full_text(self) -> str:
        parts = [self.title, self.abstract]
        parts += [f"{s.heading}\n{s.text}" for s in self.sections]
        parts += [t.caption for t in self.tables] + [f.caption for f in self.figures]
        parts += [" ".join(c for row in t.rows for c in row) for t in self.tables]
        return "\n".join(parts)

    def code_links(self) -> list[str]:
        hosts = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co")
        return [link for link in self.links if any(h in link for h in hosts)]


class PaperListEntry(BaseModel):
    """One line of an EXP-Bench paper list (JSONL)."""

    model_config = ConfigDict(extra="allow")

    id: str
    conference: str = ""
    title: str = ""
    pdf_url: str
    code_url: str
    commit: str = ""

    def entry(self) -> dict[str, str]:
        """This paper's line of a paper list, without what a subclass adds."""
        return {name: getattr(self, name) for name in PaperListEntry.model_fields}
