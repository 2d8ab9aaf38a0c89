"""`benchmarks/llm_cost.py` runs the LLM drafting flow end to end against its loopback stand-in.

The benchmark is run by `make bench-llm-cost`, not here; this checks on our sample paper that
it still takes every step (classify, draft, takeaways, refine) and prices what it sent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_cost_benchmark_drafts_the_sample_paper_through_every_step(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "sample"
    corpus.mkdir(parents=True)
    (corpus / "paper.pdf").symlink_to(ROOT / "data" / "sample" / "paper.pdf")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "benchmarks/llm_cost.py", str(corpus.parent), "--model", "gpt-4o"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    row = next(line for line in out.splitlines() if line.startswith("sample "))
    calls, prompt, completion, images, usd = row.split()[1:]
    # classify + at least one drafted section + takeaways + at least one refine call
    assert int(calls) >= 4
    assert int(prompt) > 1_000 and int(completion) > 100
    assert int(images) >= 1  # gpt-4o sees the table and figure crops
    assert float(usd) > 0
