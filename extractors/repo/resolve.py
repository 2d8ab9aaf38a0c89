"""Turn a repository reference (local folder, local git repo, git URL) into a pinned worktree.

Every later record cites files at one commit, so the first job is to make that commit exist
and check it out somewhere we own. We never touch the caller's own checkout: local git repos
are cloned into the cache, plain folders are copied and committed with a fixed author and date
so that the same content always gives the same sha.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import git

# Fixed identity and date: a plain folder with the same content must pin to the same sha.
_STABLE_ENV = {
    "GIT_AUTHOR_NAME": "expcurate",
    "GIT_AUTHOR_EMAIL": "expcurate@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_NAME": "expcurate",
    "GIT_COMMITTER_EMAIL": "expcurate@localhost",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
}
# Network git must never hang on a password prompt or a stalled transfer.
_NET_CONFIG = [
    "-c",
    "http.lowSpeedLimit=1000",
    "-c",
    "http.lowSpeedTime=30",
    "-c",
    "core.askPass=",
]
# `scheme://...`, and git's `transport::address` form (ext::, fd::), which must be refused.
_URL_RE = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)(?:://|::)")
_SCP_RE = re.compile(r"^[\w.-]+@[\w.-]+:(?!//)")
_ALLOWED_SCHEMES = {"http", "https", "ssh", "git", "file", "git+ssh", "ssh+git"}
_COPY_IGNORE = shutil.ignore_patterns(".git", "__pycache__", ".venv", "node_modules")


class RepoLoadError(ValueError):
    """A repository reference we cannot load; the message says what to do about it."""


def is_git_url(source: str) -> bool:
    """True for `scheme://...` and scp-like `user@host:path` references."""
    return bool(_URL_RE.match(source) or _SCP_RE.match(source))


def resolve_repo(
    source: str,
    commit: str | None,
    clones_dir: Path,
    *,
    timeout: float = 600.0,
    update: bool = False,
) -> tuple[Path, str]:
    """Return (worktree, full commit sha) with the worktree checked out, detached, at the pin.

    `update` fetches a cached URL clone even when no commit is requested, so a scheduled
    rescan sees new commits; otherwise the network is used only when something is missing.
    """
    clones_dir = Path(clones_dir)
    clones_dir.mkdir(parents=True, exist_ok=True)
    source = source.strip()
    if not source:
        raise RepoLoadError("empty repository reference; pass a local folder or a git URL")
    if is_git_url(source):
        return _resolve_url(source, commit, clones_dir, timeout=timeout, update=update)
    path = Path(source).expanduser()
    if not path.exists():
        raise RepoLoadError(
            f"repository path {source} does not exist; pass an existing folder or a git URL"
        )
    if not path.is_dir():
        raise RepoLoadError(f"repository path {source} is a file; pass the repository's folder")
    path = path.resolve()
    if (path / ".git").exists():
        return _resolve_local_git(path, commit, clones_dir)
    return _resolve_folder(path, commit, clones_dir)


# ------------------------------------------------------------------ sources


def _resolve_url(
    url: str, commit: str | None, clones_dir: Path, *, timeout: float, update: bool
) -> tuple[Path, str]:
    match = _URL_RE.match(url)
    scheme = match["scheme"].lower() if match else "ssh"
    if scheme not in _ALLOWED_SCHEMES:
        raise RepoLoadError(
            f"unsupported git URL scheme {scheme!r} in {url}; use https://, ssh://, git:// "
            "or file://, or pass a local path"
        )
    dest = clones_dir / f"{_slug(url)}-{_short_hash(url)}"
    with _locked(dest):
        repo = _open_cached(dest)
        if repo is None:
            _clone(url, dest, timeout=timeout)
            repo = git.Repo(dest)
        elif update or (commit and _rev(repo, commit) is None):
            _fetch(repo, url, timeout=timeout)
        return _checkout(repo, commit, url, default_ref="origin/HEAD" if update else "HEAD")


def _resolve_local_git(path: Path, commit: str | None, clones_dir: Path) -> tuple[Path, str]:
    try:
        source_repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise RepoLoadError(f"{path} has a .git entry but is not a usable git repository") from exc
    if not source_repo.head.is_valid():
        raise RepoLoadError(f"git repository {path} has no commits; commit your files first")
    wanted = commit or source_repo.head.commit.hexsha
    if _rev(source_repo, wanted) is None:
        raise RepoLoadError(
            f"commit {commit!r} is not in {path}; check the sha or branch name (git log)"
        )
    dest = clones_dir / f"{_slug(str(path))}-{_short_hash(str(path))}"
    with _locked(dest):
        repo = _open_cached(dest)
        if repo is None:
            _clone(str(path), dest, timeout=600.0)
            repo = git.Repo(dest)
        elif _rev(repo, wanted) is None:
            _fetch(repo, str(path), timeout=600.0)
        sha = _rev(source_repo, wanted)
        return _checkout(repo, sha, str(path), default_ref="HEAD")


def _resolve_folder(path: Path, commit: str | None, clones_dir: Path) -> tuple[Path, str]:
    """Copy a plain folder and commit it once, with a stable identity, so it can be pinned.
    Every snapshot is kept in one repository and checked out in its own worktree (another
    paper may be reading an earlier one)."""
    dest = clones_dir / f"{_slug(str(path))}-{_short_hash(str(path))}"
    with _locked(dest):
        return _snapshot_folder(path, commit, clones_dir, dest)


def _snapshot_folder(
    path: Path, commit: str | None, clones_dir: Path, dest: Path
) -> tuple[Path, str]:
    tmp = Path(tempfile.mkdtemp(prefix=".copy-", dir=clones_dir))
    work = tmp / "repo"
    try:
        shutil.copytree(path, work, symlinks=True, ignore=_COPY_IGNORE)
        repo = git.Repo.init(work)
        env = {**os.environ, **_STABLE_ENV}
        cfg = ["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"]
        repo.git.execute(["git", *cfg, "add", "-A"], env=env)
        repo.git.execute(
            ["git", *cfg, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "snapshot"],
            env=env,
        )
        sha = repo.head.commit.hexsha
        if commit and not sha.startswith(commit.lower()):
            raise RepoLoadError(
                f"folder {path} pins to commit {sha[:12]}, not the requested {commit}; "
                "a plain folder has one commit, so drop --commit or pass a git repository"
            )
        cached = _open_cached(dest)
        if cached is None:
            if dest.exists():
                shutil.rmtree(dest)
            work.rename(dest)
            cached = git.Repo(dest)
        elif _rev(cached, sha) != sha:
            # A new snapshot joins the earlier ones (kept under refs/snapshots/), so the code
            # a task was curated at stays there to compare with (re-extraction, drift).
            cached.git.fetch("--quiet", str(work), f"+HEAD:refs/snapshots/{sha}")
        return _worktree(cached, sha), sha
    except git.GitCommandError as exc:
        raise RepoLoadError(f"could not snapshot folder {path}: {_git_reason(exc)}") from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ git helpers


@contextlib.contextmanager
def _locked(dest: Path) -> Iterator[None]:
    """One process at a time prepares a cached checkout (papers of a parallel batch may share
    a repository); the lock is the OS's, so a killed holder releases it."""
    lock = dest.parent / f".{dest.name}.lock"
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _open_cached(dest: Path) -> git.Repo | None:
    """Reuse a previous clone; a broken leftover is removed so it can be cloned again."""
    if not dest.exists():
        return None
    try:
        repo = git.Repo(dest)
        if repo.head.is_valid():
            return repo
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        pass
    shutil.rmtree(dest, ignore_errors=True)
    return None


def _net_env() -> dict[str, str]:
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}


def _clone(url: str, dest: Path, *, timeout: float) -> None:
    """Clone into a temporary folder first so an interrupted clone never looks cached."""
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=dest.parent))
    try:
        git.Git(str(dest.parent)).execute(
            ["git", *_NET_CONFIG, "clone", "--quiet", "--no-checkout", "--", url, str(tmp / "r")],
            env=_net_env(),
            kill_after_timeout=timeout,
        )
        (tmp / "r").rename(dest)
    except git.GitCommandError as exc:
        raise RepoLoadError(
            f"could not clone {url}: {_git_reason(exc)}; check the URL and your network, "
            "or pass a local path"
        ) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _fetch(repo: git.Repo, url: str, *, timeout: float) -> None:
    try:
        repo.git.execute(
            ["git", *_NET_CONFIG, "fetch", "--quiet", "--tags", "origin"],
            env=_net_env(),
            kill_after_timeout=timeout,
        )
    except git.GitCommandError as exc:
        raise RepoLoadError(f"could not fetch {url}: {_git_reason(exc)}") from exc


def _rev(repo: git.Repo, ref: str) -> str | None:
    """Full sha of `ref` (sha prefix, branch, tag or origin/branch), or None if unknown.

    Asks git to verify the object exists: GitPython accepts any 40-hex string as a sha.
    """
    if ref.startswith("-"):
        return None
    for candidate in (ref, f"origin/{ref}"):
        try:
            out = repo.git.rev_parse("--verify", "--quiet", f"{candidate}^{{commit}}")
        except git.GitCommandError:
            continue
        if re.fullmatch(r"[0-9a-f]{40,64}", out.strip()):
            return out.strip()
    return None


def _checkout(
    repo: git.Repo, commit: str | None, source: str, *, default_ref: str
) -> tuple[Path, str]:
    wanted = commit or default_ref
    sha = _rev(repo, wanted)
    if sha is None and commit is None:
        sha = _rev(repo, "HEAD")
    if sha is None:
        raise RepoLoadError(f"commit {wanted!r} is not in {source}; check the sha or branch name")
    try:
        return _worktree(repo, sha), sha
    except git.GitCommandError as exc:
        raise RepoLoadError(
            f"could not check out {sha[:12]} of {source}: {_git_reason(exc)}"
        ) from exc


def _worktree(repo: git.Repo, sha: str) -> Path:
    """The commit's own worktree beside the cached clone (`NAME@SHA12`), made once and put
    back to the commit when something changed it: papers pinned to different commits of one
    repository, and a re-extraction moving a paper to a new commit, never move each other's
    files."""
    home = Path(repo.git_dir).parent
    tree = home.parent / f"{home.name}@{sha[:12]}"
    if tree.exists():
        try:
            here = git.Repo(tree)
            if here.head.is_valid() and here.head.commit.hexsha == sha:
                # Left alone when clean: another paper may be reading it right now, and a
                # reset rewrites files git cannot prove unchanged. `--no-optional-locks`:
                # looking must not take the index lock a reader beside us may hold.
                dirty = here.git.execute(
                    ["git", "--no-optional-locks", "status", "--porcelain", "--ignored"]
                )
                if dirty.strip():
                    here.git.reset("--hard", "--quiet", sha)
                    here.git.clean("-ffdxq")
                return tree
        except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
            pass
        shutil.rmtree(tree, ignore_errors=True)
    repo.git.worktree("prune")
    repo.git.worktree("add", "--detach", "--force", "--quiet", str(tree), sha)
    return tree


def _git_reason(exc: git.GitCommandError) -> str:
    """The line of git's stderr that says what went wrong (no traceback or quoting)."""
    text = str(exc.stderr or exc.stdout or "")
    found = re.findall(r"(?:fatal|error):\s*([^\n]+)", text)
    if found:
        return found[-1].strip().rstrip("'").strip().rstrip(".")
    if exc.status in (-9, 137) or "timeout" in text.lower():
        return "git timed out"
    lines = [ln.strip(" '") for ln in text.splitlines() if ln.strip(" '")]
    return lines[-1] if lines else f"git exited with status {exc.status}"


def _slug(text: str) -> str:
    name = text.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = name.removesuffix(".git")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "repo"


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]
