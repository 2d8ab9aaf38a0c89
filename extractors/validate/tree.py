"""A repository's files as the validators see them: a checkout, or a commit read from git.

The repository checks must answer "is this path in the repository *at the pinned commit*?".
The pipeline's clone is checked out at that commit, so reading the work tree is right there;
an imported benchmark points at a checkout that may sit on another commit, so its checks read
the commit's objects instead and never touch the work tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from expcurate.records.refs import confined


class RepoTree(Protocol):
    """Read-only view of a repository's files, by repo-relative POSIX path."""

    label: str

    def is_file(self, rel: str) -> bool: ...

    def exists(self, rel: str) -> bool: ...

    def line_count(self, rel: str) -> int | None: ...  # None: content not available

    def size(self, rel: str) -> int: ...

    def read_text(self, rel: str) -> str: ...

    def files(self) -> list[str]: ...


class WorkTree:
    """Files of a checkout on disk (symlinks out of the repository do not count)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.label = str(root)

    def _path(self, rel: str) -> Path | None:
        clean = confined(rel)
        if clean is None:
            return None
        path = (self.root / clean).resolve()
        try:
            path.relative_to(self.root)
        except ValueError:
            return None
        return path

    def is_file(self, rel: str) -> bool:
        path = self._path(rel)
        return path is not None and path.is_file()

    def exists(self, rel: str) -> bool:
        path = self._path(rel)
        return path is not None and path.exists()

    def line_count(self, rel: str) -> int | None:
        path = self._path(rel)
        if path is None:
            return 0
        with path.open("rb") as fh:
            return sum(1 for _ in fh)

    def size(self, rel: str) -> int:
        path = self._path(rel)
        return path.stat().st_size if path is not None and path.is_file() else 0

    def read_text(self, rel: str) -> str:
        path = self._path(rel)
        return path.read_text(errors="replace") if path is not None else ""

    def files(self) -> list[str]:
        out = []
        for path in self.root.rglob("*"):
            rel = path.relative_to(self.root).as_posix()
            if rel == ".git" or rel.startswith(".git/") or path.is_symlink():
                continue
            if path.is_file():
                out.append(rel)
        return sorted(out)


class GitTree:
    """Files of one commit, read from git's objects (the work tree is never read or changed).

    A blob the clone does not hold (a partial or LFS-stripped snapshot) still *exists* at the
    commit; only its content is unknown, and the checks that need it say so.
    """

    def __init__(self, root: Path, commit: str) -> None:
        import git

        self.root = root
        self.repo = git.Repo(root)
        self.commit = self.repo.commit(commit).hexsha
        self.label = f"{root.name}@{self.commit[:10]}"
        self._blobs: dict[str, tuple[str, str, int]] = {}  # path -> (mode, sha, size)
        self._dirs: set[str] = set()
        self._cache: dict[str, bytes | None] = {}
        listing = self.repo.git.ls_tree("-r", "-t", "-l", "-z", "--full-tree", self.commit)
        for entry in listing.split("\0"):
            if not entry:
                continue
            meta, _, path = entry.partition("\t")
            mode, kind, sha, size = meta.split()
            if kind == "tree":
                self._dirs.add(path)
            elif kind == "blob":
                self._blobs[path] = (mode, sha, int(size) if size.isdigit() else -1)

    def is_file(self, rel: str) -> bool:
        clean = confined(rel)
        return clean is not None and clean in self._blobs and not self._is_link(clean)

    def exists(self, rel: str) -> bool:
        clean = confined(rel)
        return clean is not None and (clean in self._blobs or clean in self._dirs)

    def _is_link(self, rel: str) -> bool:
        return self._blobs[rel][0] == "120000"

    def _bytes(self, rel: str) -> bytes | None:
        if rel in self._cache:
            return self._cache[rel]
        entry = self._blobs.get(rel)
        if entry is None:
            return None
        try:
            data: bytes | None = self.repo.odb.stream(bytes.fromhex(entry[1])).read()
        except ValueError:  # the object is not in this clone
            data = None
        if len(self._cache) < 2048:  # the files a paper's tasks cite, not the whole repo
            self._cache[rel] = data
        return data

    def line_count(self, rel: str) -> int | None:
        data = self._bytes(confined(rel) or "")
        if data is None:
            return None
        return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)

    def size(self, rel: str) -> int:
        entry = self._blobs.get(confined(rel) or "")
        return entry[2] if entry is not None else 0

    def read_text(self, rel: str) -> str:
        data = self._bytes(confined(rel) or "")
        return data.decode("utf-8", errors="replace") if data is not None else ""

    def files(self) -> list[str]:
        return sorted(p for p in self._blobs if not self._is_link(p))


def as_tree(root: Path | RepoTree) -> RepoTree:
    return WorkTree(root) if isinstance(root, Path) else root
