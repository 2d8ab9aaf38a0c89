"""Load and check the hand-made table truth in `benchmarks/tables/truth/` (see README.md).

python benchmarks/tables/truth.py [FILE …]     # check files (all when none given)
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

TRUTH_DIR = Path(__file__).resolve().parent / "truth"
LAYOUTS = {
    "ruled", "grid", "unruled", "caption-above", "caption-below", "multicolumn-header",
    "multirow-header", "group-rules", "group-labels", "multirow-labels", "rotated-labels",
    "bold", "plus-minus", "arrows", "transposed", "side-by-side", "checkmarks", "wide", "long",
}  # fmt: skip


@dataclass
class Truth:
    paper: str
    label: str
    page: int
    bbox: tuple[float, float, float, float]
    rows: list[list[str]]
    header_rows: int
    stub_columns: int
    transposed: bool = False
    layout: list[str] = field(default_factory=list)
    spans: list[tuple[int, int, int]] = field(default_factory=list)
    blocks: list[tuple[int, int, str]] = field(default_factory=list)
    bold: list[tuple[int, int]] = field(default_factory=list)
    notes: str = ""
    path: Path | None = None

    @property
    def body(self) -> list[list[str]]:
        return self.rows[self.header_rows :]


def problems(data: dict) -> list[str]:
    """What is wrong with one truth file's content ([] when nothing)."""
    out: list[str] = []
    for key in ("paper", "label", "page", "bbox", "rows", "header_rows", "stub_columns"):
        if key not in data:
            out.append(f"missing {key!r}")
    if out:
        return out
    rows = data["rows"]
    if not rows or not all(
        isinstance(r, list) and all(isinstance(c, str) for c in r) for r in rows
    ):
        return ["rows must be a non-empty list of lists of strings"]
    width = len(rows[0])
    out += [
        f"row {i} has {len(r)} cells, row 0 has {width}"
        for i, r in enumerate(rows)
        if len(r) != width
    ]
    if not 0 < data["header_rows"] < len(rows):
        out.append("header_rows must leave at least one body row")
    if not 0 <= data["stub_columns"] < width:
        out.append("stub_columns must leave at least one value column")
    if len(data["bbox"]) != 4:
        out.append("bbox needs four numbers")
    for s in data.get("spans", []):
        if len(s) != 3 or not (0 <= s[0] < len(rows) and 0 <= s[1] < s[2] < width):
            out.append(f"bad span {s}")
    for b in data.get("blocks", []):
        if len(b) != 3 or not (data["header_rows"] <= b[0] <= b[1] < len(rows)):
            out.append(f"bad block {b}")
    for b in data.get("bold", []):
        if len(b) != 2 or not (0 <= b[0] < len(rows) and 0 <= b[1] < width):
            out.append(f"bad bold cell {b}")
    out += [f"unknown layout tag {t!r}" for t in data.get("layout", []) if t not in LAYOUTS]
    return out


def load(path: Path) -> Truth:
    data = json.loads(path.read_text(encoding="utf-8"))
    bad = problems(data)
    if bad:
        raise ValueError(f"{path}: " + "; ".join(bad))
    return Truth(
        paper=data["paper"],
        label=data["label"],
        page=int(data["page"]),
        bbox=tuple(float(v) for v in data["bbox"]),  # type: ignore[arg-type]
        rows=data["rows"],
        header_rows=int(data["header_rows"]),
        stub_columns=int(data["stub_columns"]),
        transposed=bool(data.get("transposed", False)),
        layout=list(data.get("layout", [])),
        spans=[tuple(s) for s in data.get("spans", [])],  # type: ignore[misc]
        blocks=[(int(a), int(b), str(c)) for a, b, c in data.get("blocks", [])],
        bold=[tuple(b) for b in data.get("bold", [])],  # type: ignore[misc]
        notes=str(data.get("notes", "")),
        path=path,
    )


def load_all(root: Path = TRUTH_DIR) -> list[Truth]:
    return [load(p) for p in sorted(root.glob("*/*.json"))]


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or sorted(TRUTH_DIR.glob("*/*.json"))
    failed = 0
    for path in files:
        try:
            t = load(path)
        except (ValueError, json.JSONDecodeError) as exc:
            print(f"BAD {exc}")
            failed += 1
            continue
        print(
            f"ok  {path.name}: {t.paper} {t.label}, {len(t.rows)} rows x {len(t.rows[0])} columns"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
