"""What orchestration adds to `expcurate extract` on the sample, measured in the same run.

Three ways to curate the bundled sample paper end to end (auto-approved), each a fresh
process in a fresh data dir, the median of REPEATS runs each:

- reference: a script that admits the paper and calls the stage runners
  (`expcurate.curation.pipeline.RUNNERS`) in the order the checkpoints make them due: the
  stages' own time plus the interpreter and its imports, no flow code at all;
- default: `expcurate extract` with no Prefect server configured (the flows run in-process);
- prefect: the same with `EXPCURATE_ENGINE=prefect` (a temporary Prefect server, flow runs).

    python benchmarks/engine_overhead.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "sample"

REFERENCE = """
import sys
from pathlib import Path
from expcurate.curation.pipeline import RUNNERS
from expcurate.curation.review import due_stages, refresh_paper_status
from expcurate.curation.services import admit_paper, open_store
from expcurate.records import PaperListEntry
from expcurate.settings import Settings, set_settings

settings = Settings(data_dir=Path(sys.argv[1]), auto_approve=True)
set_settings(settings)
store = open_store(settings)
entry = PaperListEntry(id="90001", pdf_url=sys.argv[2], code_url=sys.argv[3])
assert not admit_paper(store, entry, "heuristic", True)
while due := due_stages(store, "90001"):
    for stage in due:
        RUNNERS[stage](store, settings, "90001")
refresh_paper_status(store, "90001")
assert store.require_paper("90001").status == "ready", store.require_paper("90001").error
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_API"))}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_LOGGING_LEVEL": "WARNING", **extra}  # fmt: skip
    return env


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=REPO, capture_output=True, text=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    pdf, repo = str(SAMPLE / "paper.pdf"), str(SAMPLE / "repo")
    extract = [sys.executable, "-m", "expcurate", "extract", "--pdf", pdf, "--repo", repo,
               "--paper-id", "90001", "--auto-approve", "--data-dir"]  # fmt: skip
    ways = {
        "reference (stage runners)": lambda d: _timed(
            [sys.executable, "-c", REFERENCE, d, pdf, repo], _env()
        ),
        "default (no server)": lambda d: _timed([*extract, d], _env()),
        "prefect (temporary server)": lambda d: _timed(
            [*extract, d], _env(EXPCURATE_ENGINE="prefect")
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory(prefix="expcurate-engine-") as tmp:
        for n in range(args.repeats):
            for name, run in ways.items():  # interleaved, so load hits all alike
                times[name].append(run(str(Path(tmp) / f"{n}-{len(times[name])}-{name[:4]}")))
    base = statistics.median(times["reference (stage runners)"])
    print(f"extract on the sample, median of {args.repeats} runs each, {os.cpu_count()} cores")
    print(f"{'way':<28} {'seconds':>8} {'vs reference':>12} {'added':>7}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<28} {median:>8.2f} {median / base:>11.2f}x {median - base:>6.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
