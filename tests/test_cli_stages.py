"""Single-stage commands on our own sample: parse, draft, setup, chained through files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.records import REF_RE, STEP_RE
from tests.golden import check_golden

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_parse_writes_the_outside_names(tmp_path: Path, sample_pdf: Path) -> None:
    out = tmp_path / "parsed.json"
    text = _ok("parse", str(sample_pdf), "--out", str(out), "--images", str(tmp_path / "images"))
    assert "4 tables (4 with cells)" in text
    data = json.loads(out.read_text())
    assert {
        "title",
        "abstract",
        "sections",
        "tables",
        "figures",
        "links",
        "status",
        "errors",
    } <= set(data)
    assert {"number", "title", "level", "page"} <= set(data["sections"][0])
    assert {"label", "caption", "page", "bbox", "rows"} <= set(data["tables"][0])
    for fig in data["figures"]:
        assert (tmp_path / fig["image"]).is_file()


def test_draft_matches_golden_and_setup_fills_it(
    tmp_path: Path, sample_pdf: Path, sample_repo: Path
) -> None:
    """The heuristic's drafts of the sample, field by field; `setup` then fills the same tasks
    in the same order with references that exist."""
    drafts = tmp_path / "tasks.json"
    _ok("draft", str(sample_pdf), "--out", str(drafts))
    body = json.loads(drafts.read_text())
    check_golden(
        "sample_drafts.json",
        {
            **body,
            "questions": [{k: v for k, v in q.items() if k != "flags"} for q in body["questions"]],
        },
    )
    for q in body["questions"]:
        assert q["question"].endswith("?") and q["evidence"]
        assert not [f for f in q["flags"] if f["severity"] == "error"], q["flags"]
        assert q["source"] == [] and q["requirements"] == []
    filled = tmp_path / "setup.json"
    _ok(
        "setup",
        "--tasks",
        str(drafts),
        "--repo",
        str(sample_repo),
        "--out",
        str(filled),
        "--data-dir",
        str(tmp_path / "data"),
    )
    out = json.loads(filled.read_text())
    assert [q["question"] for q in out["questions"]] == [q["question"] for q in body["questions"]]
    answered = [q for q in out["questions"] if not q["no_answer"]]
    assert len(answered) >= len(out["questions"]) - 2
    for q in answered:
        for step in q["requirements"]:
            assert STEP_RE.match(step)
            ref = REF_RE.search(step)
            if ref:
                n = len((sample_repo / ref.group(1)).read_text().splitlines())
                assert 1 <= int(ref.group(2)) <= int(ref.group(3) or ref.group(2)) <= n


def test_setup_reads_old_hypothesis_files(tmp_path: Path, sample_repo: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text(
        json.dumps(
            {
                "questions": [
                    {
                        "hypothesis": "Does removing the gate raise the test MSE of GateMix on ETTh1?",
                        "method": "Train GateMix with and without --no-gate on ETTh1.",
                        "expected_outcome": "Without the gate the MSE rises.",
                    }
                ]
            }
        )
    )
    out = tmp_path / "out.json"
    _ok(
        "setup",
        "--tasks",
        str(old),
        "--repo",
        str(sample_repo),
        "--out",
        str(out),
        "--data-dir",
        str(tmp_path / "data"),
    )
    q = json.loads(out.read_text())["questions"][0]
    assert q["question"].startswith("Does removing the gate")
    assert "train.py" in q["source"]


def test_stage_commands_reject_bad_input(tmp_path: Path, sample_repo: Path) -> None:
    png = tmp_path / "paper.pdf"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 100)
    for args in (["parse", str(png)], ["draft", str(png), "--out", str(tmp_path / "t.json")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "PDF" in result.output and "Traceback" not in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(
        app,
        [
            "setup",
            "--tasks",
            str(bad),
            "--repo",
            str(sample_repo),
            "--out",
            str(tmp_path / "o.json"),
        ],
    )
    assert result.exit_code == 2 and "cannot read" in result.output


def test_setup_command_runs_the_pipelines_policy_choice(
    tmp_path: Path, sample_pdf: Path, sample_repo: Path, monkeypatch: Any
) -> None:
    """`setup --model X` goes through the same agent factory as the setup stage: an LLM model
    is accepted (it used to be refused as 'heuristic only') and its missing key is one line."""
    for name in ("OPENAI_API_KEY", "EXPCURATE_API_KEY", "EXPCURATE_SETUP_MODEL"):
        monkeypatch.delenv(name, raising=False)
    drafts = tmp_path / "tasks.json"
    _ok("draft", str(sample_pdf), "--out", str(drafts))
    result = runner.invoke(
        app,
        ["setup", "--tasks", str(drafts), "--repo", str(sample_repo), "--out",
         str(tmp_path / "o.json"), "--model", "openai/gpt-4o-mini",
         "--data-dir", str(tmp_path / "data")],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "OPENAI_API_KEY" in result.output and "only the heuristic" not in result.output
    assert not (tmp_path / "o.json").exists()
