"""The command line: help on every command, one clear line and exit 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from expcurate.cli import app
from expcurate.store import Store

runner = CliRunner()


def _commands() -> list[str]:
    return sorted(
        c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands
    )


@pytest.mark.parametrize("name", _commands())
def test_every_command_has_help(name: str) -> None:
    """A command without help text fails this test."""
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0, result.output
    command = next(c for c in app.registered_commands if (c.name or c.callback.__name__) == name)  # type: ignore[union-attr]
    assert command.callback is not None and (command.callback.__doc__ or "").strip()


def _extract(tmp_path: Path, pdf: str, repo: str) -> tuple[int, str]:
    data = tmp_path / "data"
    result = runner.invoke(
        app, ["extract", "--pdf", pdf, "--repo", repo, "--paper-id", "bad", "--data-dir", str(data)]
    )
    return result.exit_code, result.output


def _paper_error(tmp_path: Path) -> str:
    store = Store(f"sqlite:///{tmp_path / 'data' / 'expcurate.db'}")
    paper = store.require_paper("bad")
    assert paper.status == "failed"
    return paper.error


# Bad input is found where the curate-paper flow admits the paper, so these run under Prefect.


@pytest.mark.prefect
def test_missing_pdf_is_bad_input(tmp_path: Path, sample_repo: Path, prefect_harness: None) -> None:
    code, out = _extract(tmp_path, str(tmp_path / "nope.pdf"), str(sample_repo))
    assert code == 2
    assert "PDF not found" in out and "Traceback" not in out
    assert "PDF not found" in _paper_error(tmp_path)


@pytest.mark.prefect
def test_html_saved_as_pdf_is_bad_input(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    fake = tmp_path / "paper.pdf"
    fake.write_text("<html><body>not a pdf</body></html>")
    code, out = _extract(tmp_path, str(fake), str(sample_repo))
    assert code == 2 and "not a PDF" in out
    assert "not a PDF" in _paper_error(tmp_path)


@pytest.mark.prefect
def test_missing_repo_path_is_bad_input(
    tmp_path: Path, sample_pdf: Path, prefect_harness: None
) -> None:
    code, out = _extract(tmp_path, str(sample_pdf), str(tmp_path / "no-such-repo"))
    assert code == 2 and "repository not found" in out
    assert "repository not found" in _paper_error(tmp_path)


@pytest.mark.prefect
def test_bad_paper_id_is_bad_input(tmp_path: Path, sample_pdf: Path, prefect_harness: None) -> None:
    """An id that would name a folder outside the data dir is refused and leaves no row."""
    result = runner.invoke(
        app,
        ["extract", "--pdf", str(sample_pdf), "--repo", str(tmp_path), "--paper-id", "../x",
         "--data-dir", str(tmp_path / "data")],
    )  # fmt: skip
    assert result.exit_code == 2 and "paper id '../x' must be" in result.output
    assert Store(f"sqlite:///{tmp_path / 'data' / 'expcurate.db'}").papers() == []


@pytest.mark.prefect
def test_unresolvable_repo_url_fails_the_paper(
    tmp_path: Path, sample_pdf: Path, prefect_harness: None
) -> None:
    """A git URL that does not resolve fails ingest with a clear reason, no traceback."""
    code, out = _extract(tmp_path, str(sample_pdf), "https://invalid.invalid/nobody/nothing.git")
    assert code == 2, out
    assert "Traceback" not in out
    assert "invalid.invalid" in _paper_error(tmp_path)


def test_bad_paper_list_line_is_reported(tmp_path: Path) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"id": "1", "title": "x"}\n')
    result = runner.invoke(app, ["batch", str(papers), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2
    assert "papers.jsonl:1" in result.output


def test_status_on_empty_store(tmp_path: Path) -> None:
    result = runner.invoke(app, ["status", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0
    assert "no papers yet" in result.output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["advance", "nope"], "error: no paper 'nope' in the store; see `expcurate status`"),
        (["approve", "--task", "999"], "error: no task 999 in the store"),
        (["approve", "--paper", "nope", "--stage", "parse"], "error: no paper 'nope' in the store"),
    ],
)
def test_what_the_store_refuses_is_one_line_and_exit_2(
    args: list[str], line: str, tmp_path: Path
) -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("EXPCURATE_")}
    done = subprocess.run(
        [sys.executable, "-m", "expcurate", *args, "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, env={**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().startswith(line) and done.stderr.count("\n") <= 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_temporary_prefect_server_that_does_not_start_is_one_line(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_API"))}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "EXPCURATE_ENGINE": "prefect",
            "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "1"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "expcurate", "extract", "--pdf", str(root / "data/sample/paper.pdf"),
         "--repo", str(root / "data/sample/repo"), "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, env=env, timeout=180,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.startswith("error: Timed out while attempting to connect to ephemeral")
    assert "Nothing was lost: run the same command again" in done.stderr


def test_version_and_the_demo_from_wherever_the_sample_is(
    tmp_path: Path, prefect_harness: None
) -> None:
    from expcurate.cli.papers import sample_dir

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("expcurate ")
    assert sample_dir() is not None  # data/sample of this checkout (expcurate/sample in a wheel)
    data = tmp_path / "data"
    result = runner.invoke(app, ["demo", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    assert "1 papers, 0 failed" in result.output
    assert list((data / "published" / "sample").glob("outputs/logs/*/*/*_complete_final.json"))


def test_the_command_keeps_pymupdfs_layout_model_out_of_its_process(tmp_path: Path) -> None:
    """PyMuPDF imports its layout add-on (an ONNX model) whenever it is installed; the
    command never uses it, so its process starts without it, and still parses PDFs."""
    import importlib.util
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("pymupdf.layout") is None:
        pytest.skip("PyMuPDF's layout add-on is not installed here: nothing to keep out")
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXPCURATE_")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    probe = (
        "import sys, runpy; sys.argv = ['expcurate', '--version']\n"
        "try:\n    runpy.run_module('expcurate', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('pymupdf' in sys.modules, 'onnxruntime' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    # the command's modules (and PyMuPDF with them) are loaded, the layout model is not
    assert done.stdout.strip().splitlines()[-1] == "True False", done.stdout
