"""The README's commands keep working: every `expcurate …` and `make …` it shows exists."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from expcurate.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CODE = "\n".join(re.findall(r"```(?:bash|sh)?\n(.*?)```", README, re.S))


def test_readme_expcurate_commands_exist() -> None:
    used = set(re.findall(r"^expcurate ([a-z][\w-]*)", CODE, re.M))
    assert used, "the README shows no expcurate command"
    runner = CliRunner()
    for name in sorted(used):
        result = runner.invoke(app, [*name.split(), "--help"])
        assert result.exit_code == 0, f"README shows `expcurate {name}`: {result.output}"


def test_readme_make_targets_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))
    used = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", README, re.M))
    assert {"demo", "test"} <= used
    assert used <= targets, f"README names make targets that do not exist: {used - targets}"


def test_ci_runs_the_readme_test_command() -> None:
    assert "make test" in (ROOT / ".ci" / "run").read_text()
