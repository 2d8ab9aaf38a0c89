"""Average the per-seed lines written by `evaluate.py --append-log` into one line per setting.

Example:
    python scripts/aggregate_results.py runs/main_per_seed.log --out results/main_results.log
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from statistics import mean


def parse_line(line: str) -> dict[str, str]:
    return dict(field.split("=", 1) for field in line.split())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("log", help="per-seed log written by evaluate.py")
    p.add_argument("--metrics", nargs="+", default=["mse", "mae"])
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)

    groups: dict[tuple[str, str, str], list[dict[str, str]]] = defaultdict(list)
    with open(args.log) as fh:
        for raw in fh:
            if raw.strip() and not raw.startswith("#"):
                rec = parse_line(raw)
                groups[(rec["dataset"], rec["horizon"], rec["variant"])].append(rec)

    with open(args.out, "w") as fh:
        fh.write(f"# mean over seeds of {args.log}\n")
        for (dataset, horizon, variant), recs in sorted(groups.items()):
            values = " ".join(f"{m}={mean(float(r[m]) for r in recs):.3f}" for m in args.metrics)
            fh.write(
                f"dataset={dataset} horizon={horizon} variant={variant} "
                f"seeds={len(recs)} {values}\n"
            )


if __name__ == "__main__":
    main()
