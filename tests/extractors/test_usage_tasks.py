"""Repo-usage tasks ("How can you ...?") drafted from documented commands."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from extractors.agent import leaked_names, validate_references
from extractors.agent.usage_tasks import usage_tasks
from extractors.repo import mine_repo


def _git_repo(root: Path) -> Path:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "commit", "-q", "-m", "x"]):  # fmt: skip
        subprocess.run(cmd, cwd=root, check=True, env=env)
    return root


def _tiny_repo(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "__init__.py").write_text("")
    (root / "lib" / "scoring.py").write_text(
        '"""Scoring helpers."""\n\n\ndef word_overlap(a, b):\n    """Share of shared words."""\n'
        "    sa, sb = set(a.split()), set(b.split())\n    return len(sa & sb) / max(len(sa), 1)\n"
    )
    (root / "score_pairs.py").write_text(
        '"""Score sentence pairs by word overlap and write one line per pair."""\n\n'
        "import argparse\n\nfrom lib.scoring import word_overlap\n\n\n"
        "def main():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--pairs", default="pairs.txt", help="tab-separated pairs")\n'
        '    p.add_argument("--lowercase", action="store_true", help="compare in lower case")\n'
        '    p.add_argument("--out", default="scores.csv", help="where to write")\n'
        "    args = p.parse_args()\n    print(word_overlap('a b', 'b c'))\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    (root / "README.md").write_text(
        "# Pair scorer\n\n## Install\n\n```bash\npip install -r requirements.txt\n"
        "git clone https://example.org/data.git\n```\n\n## Scoring\n\n"
        "Score every pair of the sample file:\n\n```bash\n"
        "python score_pairs.py --pairs data/pairs.txt --lowercase --out results/scores.csv\n```\n\n"
        "It writes results/scores.csv with the accuracy of each pair.\n"
    )
    return _git_repo(root)


def test_readme_command_becomes_a_grounded_usage_task(tmp_path: Path) -> None:
    root = _tiny_repo(tmp_path)
    index = mine_repo(root)
    tasks = usage_tasks(index, root)
    assert len(tasks) == 1, [d.question for d, _ in tasks]  # pip / git clone are skipped
    draft, setup = tasks[0]
    assert draft.question.startswith("How can you score every pair of the sample file")
    assert "--lowercase" in draft.question and draft.question.endswith("?")
    assert "results/scores.csv" in draft.expected_outcome
    assert "accuracy" in draft.expected_outcome
    assert "--pairs data/pairs.txt" in draft.method
    assert setup.source[:2] == ["score_pairs.py", "lib/scoring.py"]
    assert setup.masked_source == ["score_pairs.py"]
    assert setup.usage_instructions.startswith("python score_pairs.py --pairs")
    assert setup.requirements and setup.requirements[-1].startswith("Final Step:")
    assert validate_references(setup, root) == []
    assert "score_pairs" not in setup.agent_instructions
    assert "lib/scoring.py" in setup.agent_instructions  # reusable, not masked


def test_sample_repo_usage_tasks_have_valid_refs_and_no_leaks(sample_repo: Path) -> None:
    index = mine_repo(sample_repo)
    tasks = usage_tasks(index, sample_repo, limit=20)
    assert len(tasks) >= 5
    keys = [d.key for d, _ in tasks]
    assert len(keys) == len(set(keys))
    for draft, setup in tasks:
        assert draft.question.startswith("How can you ") and draft.question.endswith("?")
        assert validate_references(setup, sample_repo) == [], draft.key
        assert leaked_names(setup.agent_instructions, setup.masked_source) == [], draft.key
        assert not setup.usage_instructions.startswith(("pip", "conda", "git", "mkdir"))
    runs_table = next(d for d, _ in tasks if "run_main.sh" in d.method)
    assert "results/main_results.log" in runs_table.expected_outcome
    assert "ablation_results" not in runs_table.expected_outcome  # another row's output


def test_limit_covers_distinct_scripts_first_and_is_deterministic(sample_repo: Path) -> None:
    index = mine_repo(sample_repo)
    three = usage_tasks(index, sample_repo, limit=3)
    assert len(three) == 3
    assert len({s.masked_source[0] for _, s in three}) == 3
    again = usage_tasks(mine_repo(sample_repo), sample_repo, limit=3)
    assert [(d.model_dump(), s.model_dump()) for d, s in three] == [
        (d.model_dump(), s.model_dump()) for d, s in again
    ]


def test_usage_tasks_command_writes_expbench_file(tmp_path: Path, settings: object) -> None:
    import typer

    from expcurate.cli import usage as cli_usage

    app = typer.Typer()
    cli_usage.register(app)
    app.command("noop")(lambda: None)  # a second command keeps typer's subcommand form
    root = _tiny_repo(tmp_path)
    out = tmp_path / "usage.json"
    result = CliRunner().invoke(app, ["usage-tasks", "--repo", str(root), "--out", str(out)])
    assert result.exit_code == 0, result.output
    body = json.loads(out.read_text())
    assert len(body["questions"]) == 1
    q = body["questions"][0]
    assert q["mode"] == "A" and q["question"].startswith("How can you")
    assert q["source"][0] == "score_pairs.py" and len(body["repository"]["commit"]) == 40


def test_a_question_how_a_thing_can_be_used_asks_how_and_asks_to_build_nothing() -> None:
    """ "How can MogaNet be used for object detection?" is a usage task as "How can you
    ...?" is; one asking how a thing performs is not, nor does using something build it."""
    from extractors.agent.query import asks_how, asks_to_build

    for used in (
        "How can MogaNet be used for object detection on images containing multiple objects?",
        "How can MogaNet be applied to human pose estimation for detecting body keypoints?",
        "How can you download samples from the dataset by their metadata?",
    ):
        assert asks_how(used), used
    assert not asks_to_build("How can MogaNet be used for object detection?")
    for asked in (
        "How does the model perform when applied to ETTh1?",
        "How well can the method be used on long sequences?",
    ):
        assert not asks_how(asked), asked


def test_the_compare_line_repeats_a_long_question_without_cutting_a_word() -> None:
    from extractors.agent.usage import MAX_ASKED, _asked

    first = "Do API-based LLMs outperform open-sourced LLMs across the benchmark's tasks?"
    more = " Specifically, " + "does the trend of Table 3 hold in Table 4 as well, " * 8
    assert _asked(first + more) == first
    assert _asked(first) == first
    long = "How does each variant compare with the full model " + "on dataset X and Y " * 30
    said = _asked(long)
    assert said.endswith(" …") and len(said) <= MAX_ASKED + 2
    assert long.startswith(said[:-2]) and long[len(said) - 2] == " "
