"""The reviewer's rating sheet: draft the corpus, draw the rubric's 40 tasks, tally the grades.

Usage:
    python benchmarks/rubric_sample.py [CORPUS_DIR] [--strategy heuristic] [--out DIR]
    python benchmarks/rubric_sample.py --grades FILE

The first form drafts every corpus paper (folders in sorted order) with the strategy, flattens
the tasks keeping each paper's order, draws 40 with `random.seed(7); random.sample(tasks, 40)`
as `../shared/review-rubric.md` prescribes, and writes to DIR (default
data/rubric/<strategy>-<YYYY-MM-DD>/):
    sample.md          the rating sheet: one block per task with an empty "Grade: _  Reason: _"
    sample.json        the same data (fill in "grade" and "reason" there if you prefer)
    images/*.png       the crop of each cited table or figure, linked from sample.md
    drafts/<folder>.json  every paper's full DraftSet
It prints per paper the task count, how many tasks carry an error or warning flag, the
headline label and whether a task cites it. An existing sheet with grades in it is never
overwritten (pass --force).

The second form reads a filled sheet (sample.json, a JSON list of {index, grade, reason}, or
sample.md with the grades written in) and prints A/B/C, the A+B and A shares and the reasons
tallied by their first word, as markdown for docs/benchmarks.md. Write reasons as
"category: detail" (e.g. "direction: lower is better ignored") so they tally together.

The corpus defaults to ../shared/corpus beside the repository (or EXPCURATE_CORPUS_DIR).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parents[1]
SEED = 7
SIZE = 40
GRADES = ("A", "B", "C")
T = TypeVar("T")


# ---------------------------------------------------------------- sampling


def draw_sample(population: Sequence[T], size: int = SIZE, seed: int = SEED) -> list[T]:
    """The rubric's draw, literally: `random.seed(7); random.sample(tasks, 40)`."""
    if len(population) < size:
        raise ValueError(f"only {len(population)} tasks; the rubric draws {size}")
    random.seed(seed)
    return random.sample(list(population), size)


@dataclass
class Entry:
    """One task of the flattened population, with what the sheet shows beside it."""

    folder: str
    position: int  # the task's index within its paper's drafts
    task: Any  # TaskDraft
    flags: list[Any] = field(default_factory=list)  # Flag
    crops: dict[str, Any] = field(default_factory=dict)  # evidence label -> Table | Figure


# ---------------------------------------------------------------- drafting the corpus


def corpus_dir(arg: str | None) -> Path:
    return Path(arg or os.environ.get("EXPCURATE_CORPUS_DIR") or ROOT.parent / "shared" / "corpus")


def paper_folders(corpus: Path) -> list[Path]:
    return sorted(
        (p for p in corpus.iterdir() if (p / "paper.pdf").is_file()), key=lambda p: p.name
    )


def _floats_by_label(paper: Any) -> dict[tuple[str, int | None], Any]:
    """Tables and figures by (label, page): an appendix may reuse a label ("Figure 1")."""
    out: dict[tuple[str, int | None], Any] = {}
    for f in [*paper.tables, *paper.figures]:
        if f.label:
            out[(f.label, f.page)] = f
            out.setdefault((f.label, None), f)  # the first one, when the page is not known
    return out


def _crop(pdf: Path, item: Any, images_root: Path, dest: Path) -> bool:
    """Copy the crop parse_pdf wrote for `item`, or render its page region; False if neither."""
    if item.image and (images_root / item.image).is_file():
        shutil.copyfile(images_root / item.image, dest)
        return True
    if item.bbox is None:
        return False
    import pymupdf

    with pymupdf.open(pdf) as doc:
        if not 1 <= item.page <= doc.page_count:
            return False
        pix = doc[item.page - 1].get_pixmap(dpi=150, clip=pymupdf.Rect(item.bbox))
        pix.save(dest)
    return True


def draft_corpus(corpus: Path, strategy: str, out: Path, work: Path) -> list[Entry]:
    """Draft every paper, write drafts/<folder>.json, print a line per paper; the population."""
    from expcurate.records import TaskFields
    from extractors.paper import parse_pdf
    from extractors.tasks import draft_tasks
    from extractors.tasks.claims import headline_labels
    from extractors.validate import validate_drafts

    (out / "drafts").mkdir(parents=True, exist_ok=True)
    population: list[Entry] = []
    print(f"{'paper':32s} {'tasks':>5s} {'flagged':>7s}  headline (cited by a task)")
    for folder in paper_folders(corpus):
        images = work / folder.name / "images"
        paper = parse_pdf(folder / "paper.pdf", images)
        drafts = draft_tasks(paper, strategy, images_root=images.parent)
        flags = validate_drafts([TaskFields.from_draft(t) for t in drafts.tasks], paper)
        (out / "drafts" / f"{folder.name}.json").write_text(
            json.dumps(drafts.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
        )
        floats = _floats_by_label(paper)
        for i, (task, task_flags) in enumerate(zip(drafts.tasks, flags, strict=True)):
            crops = {
                e.label: floats.get((e.label, e.page)) or floats[(e.label, None)]
                for e in task.evidence
                if e.kind in ("table", "figure") and (e.label, None) in floats
            }
            population.append(Entry(folder.name, i, task, list(task_flags), crops))

        flagged = sum(
            any(f.severity in ("error", "warning") for f in task_flags) for task_flags in flags
        )
        cited = {e.label for t in drafts.tasks for e in t.evidence}
        heads = headline_labels(paper)
        top = next((h for h in heads if h.startswith("Table")), heads[0] if heads else "")
        head = f"{top} ({'yes' if top in cited else 'NO'})" if top else "none found"
        others = sum(h in cited for h in heads)
        print(
            f"{folder.name:32s} {len(drafts.tasks):5d} {flagged:7d}  {head}; "
            f"headline labels cited {others}/{len(heads)}"
        )
    return population


# ---------------------------------------------------------------- the sheet


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def sheet_record(n: int, entry: Entry, corpus: Path, out: Path, work: Path) -> dict[str, Any]:
    """One sampled task as sample.json holds it (copying its crops into out/images)."""
    task = entry.task
    pdf = corpus / entry.folder / "paper.pdf"
    evidence = []
    for e in task.evidence:
        item = entry.crops.get(e.label) if e.kind in ("table", "figure") else None
        image = ""
        if item is not None:
            name = f"{n:02d}-{entry.folder}-{_slug(e.label)}.png"
            if _crop(pdf, item, work / entry.folder, out / "images" / name):
                image = f"images/{name}"
        evidence.append(
            {
                "kind": e.kind,
                "label": e.label,
                "page": e.page,
                "caption": item.caption if item is not None else "",
                "image": image,
            }
        )
    return {
        "index": n,
        "paper": entry.folder,
        "position": entry.position,
        "key": task.key,
        "evidence": evidence,
        "subsection_source": task.subsection_source,
        "question": task.question,
        "method": task.method,
        "expected_outcome": task.expected_outcome,
        "design_complexity": task.design_complexity.model_dump(mode="json"),
        "flags": [
            {"check": f.check, "severity": str(f.severity), "message": f.message}
            for f in entry.flags
        ],
        "pdf": str(pdf),
        "grade": "",
        "reason": "",
    }


def _variables(design: dict[str, Any]) -> list[str]:
    lines = []
    for kind in ("independent_variables", "dependent_variables", "constant_variables"):
        values = design.get(kind) or {}
        lines.append(f"- {kind.split('_')[0]}:" + ("" if values else " (none)"))
        for name, value in values.items():
            lines.append(f"  - {name}: {json.dumps(value, ensure_ascii=False)}")
    return lines


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in (text or "(empty)").splitlines())


def render_sheet(records: list[dict[str, Any]], strategy: str, corpus: Path) -> str:
    lines = [
        f"# Rating sheet: {len(records)} tasks, strategy `{strategy}`",
        "",
        f"Drawn with `random.seed({SEED}); random.sample(tasks, {SIZE})` from every task of "
        f"{corpus} (papers in sorted folder order). Rate each task with the paper open at the "
        "cited table or figure, by ../shared/review-rubric.md: **A** approvable as it is, "
        "**B** approvable after an edit under two minutes, **C** needs a rewrite or is wrong. "
        'Write the grade and a reason starting with a category word ("direction: ...", '
        '"method: ...", "rows: ...", "figure: ...", "question: ...", "outcome: ..."), then run '
        "`python benchmarks/rubric_sample.py --grades <this file>`.",
        "",
    ]
    for r in records:
        cited = [e for e in r["evidence"] if e["kind"] in ("table", "figure")] or r["evidence"]
        where = ", ".join(f"{e['label']} p.{e['page']}" for e in cited) or "no evidence"
        lines += [
            f"## {r['index']}. {r['paper']}: {where}",
            "",
            f"- key: `{r['key']}` (task {r['position']} of the paper's drafts)",
            f"- paper: [{r['paper']}/paper.pdf](file://{r['pdf']}"
            + (f"#page={cited[0]['page']})" if cited and cited[0]["page"] else ")"),
            f"- subsection: {r['subsection_source'] or '(none)'}",
        ]
        for e in r["evidence"]:
            line = f"- evidence: {e['kind']} {e['label']}, page {e['page']}"
            if e["caption"]:
                line += f": {e['caption'][:200]}"
            lines.append(line)
        lines.append("")
        for e in r["evidence"]:
            if e["image"]:
                lines += [f"![{e['label']}]({e['image']})", ""]
            elif e["kind"] in ("table", "figure"):
                lines += [f"(no crop for {e['label']}: not found in the parsed paper)", ""]
        lines += ["**Question**", "", _quote(r["question"]), ""]
        lines += ["**Method**", "", _quote(r["method"]), ""]
        lines += ["**Expected outcome**", "", _quote(r["expected_outcome"]), ""]
        lines += ["**Design variables**", "", *_variables(r["design_complexity"]), ""]
        lines += ["**Validator flags**", ""]
        lines += [f"- `{f['check']}` {f['severity']}: {f['message']}" for f in r["flags"]] or [
            "- none"
        ]
        lines += ["", "Grade: _  Reason: _", "", "---", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- grades


GRADE_LINE = re.compile(r"^\s*Grade:\s*(?P<grade>\S*)(?:\s+Reason:\s*(?P<reason>.*?))?\s*$", re.I)
HEADING = re.compile(r"^##\s+(\d+)\.")


def read_grades(path: Path) -> list[dict[str, Any]]:
    """[{index, grade, reason}] from a JSON list, sample.json, or a filled sample.md."""
    text = path.read_text()
    if path.suffix == ".json":
        data = json.loads(text)
        rows = data.get("tasks", []) if isinstance(data, dict) else data
        return [
            {
                "index": row.get("index"),
                "grade": str(row.get("grade") or ""),
                "reason": str(row.get("reason") or ""),
            }
            for row in rows
        ]
    rows, index = [], None
    for line in text.splitlines():
        if m := HEADING.match(line):
            index = int(m.group(1))
        elif m := GRADE_LINE.match(line):
            reason = m.group("reason") or ""
            rows.append(
                {
                    "index": index,
                    "grade": m.group("grade"),
                    "reason": "" if reason == "_" else reason,
                }
            )
    return rows


def _grade(raw: str) -> str:
    g = raw.strip().strip("_*").upper()[:1]
    return g if g in GRADES else ""


def reason_category(reason: str) -> str:
    """The first word of a reason, lower case: "Direction: ..." and "direction ..." agree."""
    words = re.findall(r"[A-Za-z0-9][A-Za-z0-9_/+-]*", reason)
    return words[0].lower() if words else ""


def tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    grades = Counter(g for r in rows if (g := _grade(r["grade"])))
    rated = sum(grades.values())
    reasons: dict[str, Counter[str]] = {}
    for r in rows:
        g, cat = _grade(r["grade"]), reason_category(r["reason"])
        if g and cat:
            reasons.setdefault(cat, Counter())[g] += 1
    return {
        "rows": len(rows),
        "rated": rated,
        "counts": {g: grades[g] for g in GRADES},
        "ab_share": (grades["A"] + grades["B"]) / rated if rated else 0.0,
        "a_share": grades["A"] / rated if rated else 0.0,
        "reasons": reasons,
    }


def grades_report(result: dict[str, Any], strategy: str, date: str) -> str:
    c = result["counts"]
    lines = [
        f"Reviewer acceptance, strategy `{strategy}`, rated {date}: {result['rated']} of "
        f"{result['rows']} sampled tasks graded (seed {SEED}).",
        "",
        "| A | B | C | A+B | A |",
        "|---|---|---|---|---|",
        f"| {c['A']} | {c['B']} | {c['C']} | {result['ab_share']:.0%} | {result['a_share']:.0%} |",
        "",
    ]
    if result["reasons"]:
        lines += ["| reason | tasks | A | B | C |", "|---|---|---|---|---|"]
        ranked = sorted(result["reasons"].items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        for cat, counts in ranked:
            lines.append(
                f"| {cat} | {sum(counts.values())} | {counts['A']} | {counts['B']} | {counts['C']} |"
            )
    return "\n".join(lines)


def _sheet_strategy(path: Path) -> str:
    for candidate in (path, path.parent / "sample.json"):
        if candidate.suffix == ".json" and candidate.is_file():
            data = json.loads(candidate.read_text())
            if isinstance(data, dict) and data.get("strategy"):
                return str(data["strategy"])
    return ""


# ---------------------------------------------------------------- main


def _has_grades(out: Path) -> bool:
    sheet = out / "sample.md"
    return sheet.is_file() and any(_grade(r["grade"]) for r in read_grades(sheet))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", help="corpus folder (default ../shared/corpus)")
    ap.add_argument("--strategy", default="heuristic", help="drafting strategy (model)")
    ap.add_argument("--out", type=Path, help="output folder")
    ap.add_argument("--grades", type=Path, help="tally a filled sheet instead of drafting")
    ap.add_argument("--force", action="store_true", help="overwrite a sheet that has grades")
    args = ap.parse_args(argv)
    today = dt.date.today().isoformat()

    if args.grades:
        result = tally(read_grades(args.grades))
        strategy = _sheet_strategy(args.grades) or args.strategy
        print("```markdown\n" + grades_report(result, strategy, today) + "\n```")
        return 0

    corpus = corpus_dir(args.corpus)
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}; pass its path")
    out = args.out or ROOT / "data" / "rubric" / f"{_slug(args.strategy)}-{today}"
    if _has_grades(out) and not args.force:
        sys.exit(f"{out / 'sample.md'} already has grades in it; pass --force to redraw")
    t0 = time.perf_counter()
    for sub in ("images", "drafts"):
        shutil.rmtree(out / sub, ignore_errors=True)
    (out / "images").mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="rubric-") as tmp:
        work = Path(tmp)
        population = draft_corpus(corpus, args.strategy, out, work)
        sample = draw_sample(population)
        records = [sheet_record(n, e, corpus, out, work) for n, e in enumerate(sample, 1)]
    (out / "sample.json").write_text(
        json.dumps(
            {
                "strategy": args.strategy,
                "corpus": str(corpus),
                "seed": SEED,
                "population": len(population),
                "tasks": records,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
    (out / "sample.md").write_text(render_sheet(records, args.strategy, corpus))
    papers = Counter(r["paper"] for r in records)
    print(
        f"\n{len(population)} tasks from {len({e.folder for e in population})} papers; "
        f"sampled {len(records)} (from {len(papers)} papers) with seed {SEED}; "
        f"{sum(bool(e['image']) for r in records for e in r['evidence'])} crops"
    )
    print(f"sheet: {out / 'sample.md'}  ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
