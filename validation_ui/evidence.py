"""What a reviewer sees beside an item: crops, the PDF region, code lines, logs, flag meanings.

Reads the stage artifacts the store points at (the parsed paper, the ingest result, the repo
index) and the files they name. Plain functions returning plain data; the page renders them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from expcurate.curation.pipeline import load_artifact
from expcurate.records import (
    BBox,
    Evidence,
    IngestResult,
    ParsedPaper,
    RepoIndex,
    Stage,
)
from expcurate.records.refs import inside, last_reference
from expcurate.settings import Settings
from expcurate.store import Store
from expcurate.store.rows import StageRun

M = TypeVar("M", bound=BaseModel)

# What each validator check means, in the reviewer's terms (the flag's message says where);
# used when extractors.validate has no catalog of its own.
FLAG_MEANINGS: dict[str, str] = {
    "required_fields": "A field every task needs (question, method, expected outcome) is empty.",
    "question_form": "The question must be one question ending with '?', with no markdown "
    "left over from extraction.",
    "question_leaks_outcome": "The question gives away numbers of the expected outcome, so "
    "an agent could answer without running anything.",
    "outcome_grounded": "A number in the expected outcome was not found in the paper: check it "
    "against the table or figure cited.",
    "evidence": "The task cites no table, figure or section, or cites one the parser did not "
    "find in the paper.",
    "near_duplicate": "Another task of this paper asks nearly the same thing; keep one of them.",
    "requirement_form": "A requirement is not written 'Step k: …' or 'Final Step: …'.",
    "requirement_reference": "A requirement's (path:first-last) reference is missing, names a "
    "file that is not in the repository, or lines the file does not have.",
    "source_exists": "A source file is not in the repository at the pinned commit.",
    "masked_source_exists": "A file to mask is not in the repository at the pinned commit.",
    "setup_found": "The setup has neither source files nor a no_answer reason.",
    "instructions_leak_masked": "The agent instructions name a masked file, which points the "
    "agent at the answer.",
    "leakage": "A file the agent will see (not masked) holds the expected numbers.",
}
LANGUAGES = {
    ".py": "python", ".sh": "bash", ".bash": "bash", ".yaml": "yaml", ".yml": "yaml",
    ".json": "json", ".md": "markdown", ".toml": "toml", ".cfg": "ini", ".ini": "ini",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cu": "cpp",
    ".js": "javascript", ".ts": "typescript", ".r": "r", ".jl": "julia", ".java": "java",
    ".rs": "rust", ".go": "go", ".lua": "lua", ".m": "matlab", ".txt": "text",
}  # fmt: skip


UNKNOWN_CHECK = "A finding of the stage; its message says what to check."


_SIDE = re.compile(r"\n--- ([^\n]+)\n")


def two_sides(message: str) -> tuple[str, list[tuple[str, str]]]:
    """A flag message that shows two versions (a merge's reviewer and machine values, a
    drifted reference's old and new code, each after a `--- label` line) as its lead text and
    the labelled versions, for side-by-side display; other messages come back whole, with no
    versions."""
    parts = _SIDE.split(message)
    if len(parts) != 5:  # lead, label, text, label, text
        return message, []
    lead, first, one, second, two = parts
    return lead, [(first, one), (second, two)]


def flag_meaning(check: str) -> str:
    """The validators' own catalog when it is there (one source of truth), else our table."""
    try:
        from extractors.validate.catalog import CHECKS
    except ImportError:  # an older validators package without a catalog
        return FLAG_MEANINGS.get(check, UNKNOWN_CHECK)
    known = CHECKS.get(check)
    return known.meaning if known else FLAG_MEANINGS.get(check, UNKNOWN_CHECK)


# ------------------------------------------------------------------ artifacts


@dataclass
class PaperArtifacts:
    """The current artifacts of a paper's first phase, and why any could not be read."""

    ingest: IngestResult | None = None
    parsed: ParsedPaper | None = None
    index: RepoIndex | None = None
    paper_dir: Path | None = None  # parse image paths are relative to it
    problems: list[str] = field(default_factory=list)

    @property
    def pdf(self) -> Path | None:
        if self.ingest and self.ingest.pdf_path and Path(self.ingest.pdf_path).is_file():
            return Path(self.ingest.pdf_path)
        return None

    @property
    def repo(self) -> Path | None:
        if self.ingest and self.ingest.repo_path and Path(self.ingest.repo_path).is_dir():
            return Path(self.ingest.repo_path)
        return None


def run_artifact(settings: Settings, run: StageRun, cls: type[M]) -> M:
    return load_artifact(settings, run, cls)


def load_artifacts(store: Store, settings: Settings, paper_id: str) -> PaperArtifacts:
    """Read what exists; a missing or unreadable artifact is reported, never raised."""
    out = PaperArtifacts()
    runs = store.current_runs(paper_id)
    wanted: list[tuple[Stage, type[BaseModel], str]] = [
        (Stage.ingest, IngestResult, "ingest"),
        (Stage.parse, ParsedPaper, "parsed"),
        (Stage.mine, RepoIndex, "index"),
    ]
    for stage, cls, attr in wanted:
        run = runs.get(stage.value)
        if run is None or not run.artifact:
            continue
        try:
            setattr(out, attr, load_artifact(settings, run, cls))
        except (OSError, ValueError) as exc:
            out.problems.append(f"{stage.value} artifact {run.artifact}: {exc}")
        if stage == Stage.parse:
            out.paper_dir = (settings.resolved_data_dir() / run.artifact).parent
    return out


def image_path(art: PaperArtifacts, image: str) -> Path | None:
    if not image:
        return None
    path = Path(image)
    if not path.is_absolute() and art.paper_dir is not None:
        path = art.paper_dir / path
    return path if path.is_file() else None


@dataclass
class EvidenceView:
    """One cited table, figure or section, resolved against the parsed paper."""

    kind: str
    label: str
    page: int | None = None
    caption: str = ""
    image: Path | None = None
    bbox: BBox | None = None
    section: str = ""
    text: str = ""
    rows: list[list[str]] = field(default_factory=list)
    found: bool = False


def evidence_views(evidence: list[Evidence], art: PaperArtifacts) -> list[EvidenceView]:
    parsed = art.parsed
    out = []
    for ev in evidence:
        view = EvidenceView(ev.kind, ev.label, ev.page)
        key = ev.label.strip().lower()
        if parsed is not None and ev.kind in ("table", "figure"):
            items = parsed.tables if ev.kind == "table" else parsed.figures
            hit = next((x for x in items if x.label.lower() == key), None)
            if hit is not None:
                view.found, view.caption, view.page = True, hit.caption, hit.page
                view.image, view.bbox = image_path(art, hit.image), hit.bbox
                view.section = hit.section
                view.rows = list(getattr(hit, "rows", []))
        elif parsed is not None and ev.kind == "section":
            hit_s = next(
                (s for s in parsed.sections if key in (s.heading.lower(), s.title.lower())), None
            )
            if hit_s is not None:
                view.found, view.page, view.text = True, hit_s.page, hit_s.text
        out.append(view)
    return out


def render_region(
    pdf: Path, page: int, bbox: BBox | None = None, *, margin: float = 36, zoom: float = 2.0
) -> bytes:
    """PNG of the page region around `bbox` (outlined in red), or the whole page without one."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"page {page} is outside the PDF ({doc.page_count} pages)")
        pg = doc[page - 1]
        clip = pg.rect
        if bbox is not None:
            rect = pymupdf.Rect(bbox)
            # Captions sit just above tables and below figures: keep room for both.
            clip = (
                pymupdf.Rect(
                    rect.x0 - margin, rect.y0 - 2 * margin, rect.x1 + margin, rect.y1 + 2 * margin
                )
                & pg.rect
            )
            pg.draw_rect(rect, color=(0.85, 0.1, 0.1), width=1.5)
        pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip)
        return pix.tobytes("png")


# ------------------------------------------------------------------ code


@dataclass
class CodeView:
    """Lines of a repository file, numbered, for one requirement or source file."""

    path: str
    first: int = 0
    last: int = 0
    code: str = ""
    language: str = "text"
    label: str = ""
    problem: str = ""


def language_of(path: str) -> str:
    return LANGUAGES.get(Path(path).suffix.lower(), "text")


def _numbered(lines: list[str], start: int, marked: range) -> str:
    width = len(str(start + len(lines) - 1))
    return "\n".join(
        f"{n:>{width}}{'▶' if n in marked else ' '} {line}" for n, line in enumerate(lines, start)
    )


def read_lines(
    root: Path, rel: str, first: int = 1, last: int | None = None, *, context: int = 2,
    max_lines: int = 200, label: str = "",
) -> CodeView:  # fmt: skip
    """The lines `first..last` of a repository file with a little context, never outside it."""
    view = CodeView(rel, first, last or first, language=language_of(rel), label=label)
    path = inside(root, rel)
    if path is None:
        view.problem = f"{rel} leaves the repository; not shown"
        return view
    if not path.is_file():
        view.problem = f"{rel} is not a file of the repository"
        return view
    lines = path.read_text(errors="replace").splitlines()
    end = len(lines) if last is None else last
    if first < 1 or first > len(lines) or end < first:
        view.problem = f"lines {first}-{end} are outside {rel} ({len(lines)} lines)"
        return view
    lo = max(1, first - context)
    hi = min(len(lines), end + context, lo + max_lines - 1)
    view.last = min(end, hi)
    marked = range(first, end + 1) if last is not None else range(0)
    view.code = _numbered(lines[lo - 1 : hi], lo, marked)
    if hi < min(len(lines), end + context):
        view.code += f"\n… ({end + context - hi} more lines)"
    return view


def requirement_code(requirements: list[str], root: Path | None) -> list[CodeView]:
    """The code each requirement's (path:first-last) reference points at."""
    out = []
    for req in requirements:
        ref = last_reference(req)
        if ref is None:
            out.append(CodeView("", label=req, problem="no (path:first-last) reference"))
            continue
        rel, first, last = ref
        if root is None:
            out.append(CodeView(rel, first, last, label=req, problem="repository not available"))
            continue
        out.append(read_lines(root, rel, first, last, label=req))
    return out


# ------------------------------------------------------------------ logs


def advance_logs(settings: Settings, paper_id: str) -> list[Path]:
    """Logs of background stage runs for the paper, newest first."""
    folder = settings.resolved_data_dir() / "logs"
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"advance-{paper_id}-*.log"), reverse=True)


def tail(path: Path, lines: int = 40) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])
