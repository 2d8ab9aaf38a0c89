"""References carried through git's diff, on a real repository built in the test."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from expcurate.records import Reference
from extractors.repo.carry import CodeDiff


def _lines(name: str, n: int) -> str:
    return "".join(f"{name}_{i} = {i}\n" for i in range(1, n + 1))


def _commit(repo: git.Repo, message: str) -> str:
    repo.git.add("-A")
    repo.git.commit("-q", "-m", message)
    return repo.head.commit.hexsha


@pytest.fixture
def history(tmp_path: Path) -> tuple[git.Repo, str, str]:
    root = tmp_path / "repo"
    root.mkdir()
    repo = git.Repo.init(root)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "t")
        cfg.set_value("user", "email", "t@example.com")
    for name, n in (("shift", 30), ("renamed", 10), ("edited", 20), ("gone", 5), ("spaced", 5)):
        (root / f"{name}.py").write_text(_lines(name, n))
    (root / "my dir").mkdir()
    (root / "my dir" / "tool file.py").write_text(_lines("tool", 8))
    old = _commit(repo, "first")
    (root / "shift.py").write_text("import os\nimport sys\n\n" + _lines("shift", 30))
    (root / "renamed.py").rename(root / "moved_to.py")
    edited = _lines("edited", 20).splitlines(keepends=True)
    edited[14] = "edited_15 = 'changed default'\n"
    (root / "edited.py").write_text("".join(edited))
    (root / "gone.py").unlink()
    spaced = _lines("spaced", 5).splitlines(keepends=True)
    spaced.insert(3, "between = True\n")
    (root / "spaced.py").write_text("".join(spaced))
    tool = _lines("tool", 8).splitlines(keepends=True)
    (root / "my dir" / "tool file.py").write_text("# header\n" + "".join(tool))
    new = _commit(repo, "second")
    return repo, old, new


def test_each_reference_is_carried_or_flagged_as_git_saw_the_change(
    history: tuple[git.Repo, str, str],
) -> None:
    repo, old, new = history
    diff = CodeDiff(repo, old, new)
    got = {
        (ref.path, ref.first, ref.last): diff.carry(ref)
        for ref in (
            Reference("shift.py", 10, 12),  # three lines inserted above
            Reference("shift.py", 1, 1),
            Reference("renamed.py", 2, 4),  # renamed, content the same
            Reference("edited.py", 14, 16),  # line 15 changed
            Reference("edited.py", 1, 3),  # untouched part of a changed file
            Reference("edited.py", 16, 20),  # just below the change
            Reference("gone.py", 1, 2),
            Reference("spaced.py", 2, 5),  # a line inserted inside the range
            Reference("spaced.py", 1, 3),  # inserted right after the range
            Reference("my dir/tool file.py", 2, 3),  # a path git prints with a tab
            Reference("untouched.py", 1, 2),  # not in the diff at all
        )
    }
    assert got[("shift.py", 10, 12)].new == Reference("shift.py", 13, 15)
    assert got[("shift.py", 10, 12)].status == "moved"
    assert got[("shift.py", 1, 1)].new == Reference("shift.py", 4, 4)
    assert got[("renamed.py", 2, 4)].new == Reference("moved_to.py", 2, 4)
    assert got[("renamed.py", 2, 4)].status == "moved"
    changed = got[("edited.py", 14, 16)]
    assert changed.status == "changed" and changed.new == Reference("edited.py", 14, 16)
    assert "edited_15 = 15" in changed.old_code and "changed default" in changed.new_code
    assert got[("edited.py", 1, 3)].status == "same"
    assert got[("edited.py", 16, 20)].status == "same"
    gone = got[("gone.py", 1, 2)]
    assert gone.status == "gone" and gone.new is None and "gone_1 = 1" in gone.old_code
    assert got[("spaced.py", 2, 5)].status == "changed"
    assert got[("spaced.py", 2, 5)].new == Reference("spaced.py", 2, 6)
    assert got[("spaced.py", 1, 3)].status == "same"
    assert got[("my dir/tool file.py", 2, 3)].new == Reference("my dir/tool file.py", 3, 4)
    assert got[("untouched.py", 1, 2)].status == "same"
    assert all(c.clean == (c.status in ("same", "moved")) for c in got.values())


def test_the_same_commit_carries_everything_unchanged(history: tuple[git.Repo, str, str]) -> None:
    repo, old, _ = history
    ref = Reference("edited.py", 14, 16)
    assert CodeDiff(repo, old, old).carry(ref).status == "same"


def test_a_tasks_setup_is_carried_and_what_cannot_be_is_a_drift(
    history: tuple[git.Repo, str, str],
) -> None:
    from expcurate.records import TaskFields
    from extractors.repo.carry import carry_task

    repo, old, new = history
    fields = TaskFields(
        key="t",
        question="q?",
        source=["renamed.py", "shift.py"],
        masked_source=["gone.py"],
        requirements=[
            "Step 1: set up (shift.py:10-12)",
            "Step 2: two places (renamed.py:2-4, /workspace/edited.py:1-3)",
            "Step 3: the changed one (edited.py:14-16)",
            "Final Step: one line (shift.py:1)",
        ],
        usage_instructions="1. python renamed.py --x 1\n2. python gone.py\n3. cat not_renamed.py",
    )
    carried, drifts = carry_task(fields, CodeDiff(repo, old, new))
    assert carried.requirements == [
        "Step 1: set up (shift.py:13-15)",
        "Step 2: two places (moved_to.py:2-4, /workspace/edited.py:1-3)",
        "Step 3: the changed one (edited.py:14-16)",
        "Final Step: one line (shift.py:4)",
    ]
    assert carried.source == ["moved_to.py", "shift.py"]
    assert carried.masked_source == ["gone.py"]
    assert carried.usage_instructions == (
        "1. python moved_to.py --x 1\n2. python gone.py\n3. cat not_renamed.py"
    )
    messages = [d.message for d in drifts]
    assert len(messages) == 3, messages
    assert messages[0].startswith("requirement 3 cites edited.py:14-16")
    assert "masked_source names gone.py" in messages[1]
    assert messages[2].startswith("usage instructions name gone.py")
