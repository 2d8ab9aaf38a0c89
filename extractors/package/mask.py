"""The masked starter repository of a task and the ground-truth diff that restores it.

A harness must give the agent the repository *at the pinned commit* without the masked files,
and without any way back to them: a clone keeps them in its history, so the starter is a fresh
repository whose only commit is the masked tree. Two patches describe the masking in a few
kilobytes, which is what a release ships:

    mask.patch     applied to a checkout of the pinned commit, deletes the masked files
    restore.patch  applied to the masked tree (`git apply`), gives back the original exactly

Both come from `git diff-tree` between the commit and git's empty tree, limited to the masked
paths, so nothing is written into the source repository (not even objects).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from expcurate.records.refs import repo_path

# Commits made here must not depend on whoever runs the export.
_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_LITERAL_PATHSPECS": "1",
    "GIT_AUTHOR_NAME": "ExpCurate",
    "GIT_AUTHOR_EMAIL": "expcurate@localhost",
    "GIT_COMMITTER_NAME": "ExpCurate",
    "GIT_COMMITTER_EMAIL": "expcurate@localhost",
    "LC_ALL": "C",
}
_DIFF = ["diff-tree", "-r", "-p", "--binary", "--full-index", "--no-renames", "--no-color"]


class MaskError(ValueError):
    """The task cannot be masked as written (bad commit, masked path not in the repository)."""


class MaskPatches(BaseModel):
    """The two patches of one task, and what they touch."""

    commit: str
    files: list[str] = Field(default_factory=list)  # masked files, expanded from folders
    mask: str = ""
    restore: str = ""

    @property
    def mask_sha256(self) -> str:
        return hashlib.sha256(self.mask.encode("utf-8", "surrogateescape")).hexdigest()

    @property
    def restore_sha256(self) -> str:
        return hashlib.sha256(self.restore.encode("utf-8", "surrogateescape")).hexdigest()


class MaskedRepo(BaseModel):
    """A task's masked starter repository on disk."""

    commit: str  # the pinned commit it was made from
    masked_commit: str  # the single commit of the starter repository
    files: list[str]
    tree: str  # folder: the masked work tree, itself a git repository with one commit
    bundle: str = ""  # that repository as a git bundle (`git clone masked.bundle`)
    mask_patch: str
    restore_patch: str
    mask_sha256: str
    restore_sha256: str
    bundle_sha256: str = ""


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **_ENV, **(env or {})},
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace").strip().splitlines()
        raise MaskError(f"git {args[0]} failed in {cwd}: {detail[-1] if detail else 'no output'}")
    return proc.stdout.decode("utf-8", errors="surrogateescape")


def _resolve(root: Path, commit: str) -> str:
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}").strip()
    except MaskError:
        raise MaskError(f"commit {commit!r} is not in the repository {root}") from None


def masked_files(root: Path, commit: str, masked: list[str]) -> list[str]:
    """The files of `masked` at the commit (a folder stands for the files under it)."""
    sha = _resolve(root, commit)
    files: set[str] = set()
    missing = []
    for path in dict.fromkeys(repo_path(p).rstrip("/") for p in masked if p.strip()):
        found = _git(root, "ls-tree", "-r", "-z", "--name-only", sha, "--", path).split("\0")
        found = [f for f in found if f]
        if not found:
            missing.append(path)
        files.update(found)
    if missing:
        raise MaskError(
            f"masked paths not in the repository at {sha[:10]}: {', '.join(missing)}; "
            "fix masked_source before packaging"
        )
    return sorted(files)


def mask_patches(root: Path, commit: str, masked: list[str]) -> MaskPatches:
    """The mask and restore patches of a task, from the repository's objects only."""
    sha = _resolve(root, commit)
    files = masked_files(root, sha, masked)
    if not files:
        return MaskPatches(commit=sha)
    empty = _git(root, "hash-object", "-t", "tree", os.devnull).strip()
    return MaskPatches(
        commit=sha,
        files=files,
        mask=_git(root, *_DIFF, sha, empty, "--", *files),
        restore=_git(root, *_DIFF, empty, sha, "--", *files),
    )


def _checkout(root: Path, sha: str, dest: Path) -> None:
    """Write the commit's files into `dest` through a private index: the source is untouched."""
    git_dir = _git(root, "rev-parse", "--absolute-git-dir").strip()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(root, "--git-dir", git_dir, "read-tree", sha, env=env)
        _git(
            root,
            "--git-dir",
            git_dir,
            "--work-tree",
            str(dest),
            "checkout-index",
            "-a",
            "-f",
            env=env,
        )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_masked_repo(
    root: Path, commit: str, masked: list[str], out_dir: Path, *, bundle: bool = True
) -> MaskedRepo:
    """Make `out_dir/tree` (the starter repository), the two patches, and a bundle of it.

    The starter's single commit carries the pinned commit's date, so the same inputs give the
    same masked commit id.
    """
    patches = mask_patches(root, commit, masked)
    sha = patches.commit
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tree = out_dir / "tree"
    tree.mkdir(parents=True)
    _checkout(root, sha, tree)
    for rel in patches.files:
        (tree / rel).unlink()
        parent = (tree / rel).parent
        while parent != tree and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    date = _git(root, "show", "-s", "--format=%cI", sha).strip()
    dated = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    _git(tree, "init", "-q")
    _git(tree, "symbolic-ref", "HEAD", "refs/heads/main")
    _git(tree, "add", "-A", "-f")
    _git(tree, "commit", "-q", "--no-verify", "-m", f"masked starter of {sha}", env=dated)
    masked_commit = _git(tree, "rev-parse", "HEAD").strip()
    mask_path, restore_path = out_dir / "mask.patch", out_dir / "restore.patch"
    mask_path.write_text(patches.mask, encoding="utf-8", errors="surrogateescape")
    restore_path.write_text(patches.restore, encoding="utf-8", errors="surrogateescape")
    bundle_path = out_dir / "masked.bundle"
    if bundle:
        _git(tree, "bundle", "create", "-q", str(bundle_path), "HEAD", "main")
    return MaskedRepo(
        commit=sha,
        masked_commit=masked_commit,
        files=patches.files,
        tree=str(tree),
        bundle=str(bundle_path) if bundle else "",
        mask_patch=str(mask_path),
        restore_patch=str(restore_path),
        mask_sha256=_sha256(mask_path),
        restore_sha256=_sha256(restore_path),
        bundle_sha256=_sha256(bundle_path) if bundle else "",
    )
