"""Masked starter repositories and their patches, on a real git repository made here."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from extractors.package import MaskError, build_masked_repo, mask_patches

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": os.devnull}  # fmt: skip


def _git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)
    return out.stdout.decode().strip()


def _snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every file under `folder` (not .git): kind/mode and content or link target."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path).encode())
        elif path.is_file():
            mode = "x" if path.stat().st_mode & stat.S_IXUSR else "f"
            out[rel] = (mode, path.read_bytes())
    return out


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """Text, binary, non-UTF-8, executable, nested, symlinked and git-ignored files; the pinned
    commit is the first one, a later commit changes a masked file."""
    root = tmp_path / "src"
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "pkg" / "train.py").write_text("def train():\n    return 42\n")
    (root / "pkg" / "deep" / "weights.bin").write_bytes(bytes(range(256)) * 4)
    (root / "pkg" / "latin.txt").write_bytes("caf\xe9 na\xefve\n".encode("latin-1"))
    (root / "run.sh").write_text("#!/bin/sh\npython -m pkg.train\n")
    (root / "run.sh").chmod(0o755)
    (root / "README.md").write_text("# Demo\n")
    (root / "link.py").symlink_to("pkg/train.py")
    (root / ".gitignore").write_text("*.log\n")
    (root / "results.log").write_text("accuracy 81.2\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "add", "-f", "results.log")
    _git(root, "commit", "-q", "-m", "pinned")
    pinned = _git(root, "rev-parse", "HEAD")
    (root / "pkg" / "train.py").write_text("def train():\n    return 43\n")
    _git(root, "commit", "-q", "-am", "later")
    return root, pinned


def _original(root: Path, commit: str, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(root), str(dest)], check=True, env=ENV)
    _git(dest, "checkout", "-q", commit)
    return dest


MASKED = ["pkg/train.py", "/workspace/pkg/deep", "pkg/latin.txt", "run.sh", "results.log"]


def test_restore_patch_gives_back_the_original_exactly(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    """git apply of the ground-truth diff on the masked tree restores every byte and mode."""
    root, pinned = repo
    built = build_masked_repo(root, pinned, MASKED, tmp_path / "out")
    tree = Path(built.tree)
    assert built.files == [
        "pkg/deep/weights.bin", "pkg/latin.txt", "pkg/train.py", "results.log", "run.sh"
    ]  # fmt: skip
    for rel in built.files:
        assert not (tree / rel).exists()
    assert (tree / "README.md").is_file() and (tree / "link.py").is_symlink()
    work = tmp_path / "work"
    shutil.copytree(tree, work, symlinks=True)
    shutil.rmtree(work / ".git")
    subprocess.run(["git", "apply", built.restore_patch], cwd=work, check=True, env=ENV)
    original = _original(root, pinned, tmp_path / "orig")
    assert _snapshot(work) == _snapshot(original)
    assert (work / "pkg" / "train.py").read_text().endswith("42\n")  # the pinned version


def test_mask_patch_on_a_checkout_of_the_commit_gives_the_masked_tree(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    root, pinned = repo
    built = build_masked_repo(root, pinned, MASKED, tmp_path / "out")
    checkout = _original(root, pinned, tmp_path / "checkout")
    subprocess.run(["git", "apply", built.mask_patch], cwd=checkout, check=True, env=ENV)
    assert _snapshot(checkout) == _snapshot(Path(built.tree))


def test_starter_repository_has_no_way_back_to_masked_files(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    """One commit, no history, no stray objects: `git show` cannot recover a masked file."""
    root, pinned = repo
    built = build_masked_repo(root, pinned, ["pkg/train.py"], tmp_path / "out")
    tree = Path(built.tree)
    assert _git(tree, "rev-list", "--all").splitlines() == [built.masked_commit]
    blob = _git(root, "rev-parse", f"{pinned}:pkg/train.py")
    missing = subprocess.run(["git", "cat-file", "-e", blob], cwd=tree, env=ENV)
    assert missing.returncode != 0
    clone = tmp_path / "from-bundle"
    subprocess.run(["git", "clone", "-q", built.bundle, str(clone)], check=True, env=ENV)
    assert _snapshot(clone) == _snapshot(tree)


def test_masking_is_deterministic_and_leaves_the_source_untouched(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    root, pinned = repo
    status = _git(root, "status", "--porcelain")
    objects = _git(root, "count-objects", "-v")
    first = build_masked_repo(root, pinned, MASKED, tmp_path / "a")
    second = build_masked_repo(root, pinned, MASKED, tmp_path / "b")
    assert first.masked_commit == second.masked_commit
    assert (first.mask_sha256, first.restore_sha256) == (second.mask_sha256, second.restore_sha256)
    assert _git(root, "status", "--porcelain") == status
    assert _git(root, "count-objects", "-v") == objects
    patches = mask_patches(root, pinned, MASKED)
    assert patches.restore == Path(first.restore_patch).read_text(errors="surrogateescape")


def test_a_masked_path_missing_at_the_commit_is_a_clear_error(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    root, pinned = repo
    with pytest.raises(MaskError, match=r"pkg/nope\.py"):
        build_masked_repo(root, pinned, ["pkg/train.py", "pkg/nope.py"], tmp_path / "out")
    with pytest.raises(MaskError, match="not in the repository"):
        mask_patches(root, "0" * 40, ["pkg/train.py"])


def test_nothing_to_mask_gives_empty_patches(repo: tuple[Path, str]) -> None:
    root, pinned = repo
    patches = mask_patches(root, pinned, [])
    assert patches.files == [] and patches.mask == patches.restore == ""


def test_the_method_modules_two_steps_cite_are_masked_and_support_code_is_not() -> None:
    from extractors.agent.policy import own_modules
    from extractors.agent.steps import Step

    steps = [
        Step("Compute the loss (InstanceLoss.forward)", "modules/contrastive_loss.py", 26, 42),
        Step("Compute the loss (ClusterLoss.forward)", "modules/contrastive_loss.py", 66, 92),
        Step("Build the heads (Network.__init__)", "modules/network.py", 7, 22),
        Step("Load the data", "data/loader.py", 1, 9),
        Step("Split it", "data/loader.py", 10, 19),
        Step("Train an epoch", "exp/exp_main.py", 20, 40),
        Step("Test", "exp/exp_main.py", 41, 60),
        Step("Compute NMI", "utils/metrics.py", 1, 6),
        Step("Compute ACC", "utils/metrics.py", 7, 12),
        Step("Run the epochs", "train.py", 119, 125),
        Step("Save", "train.py", 11, 27),
        Step("Attend", "vendored/attention.py", 1, 5),
        Step("Attend again", "vendored/attention.py", 6, 9),
    ]
    masked = own_modules(steps, ["train.py"], frozenset({"vendored/attention.py"}))
    # cited once (network.py) is a neighbour; the driver, the data, the measures, the entry
    # point already masked and another work's code stay visible
    assert masked == ["modules/contrastive_loss.py"]
