"""Walk a repository and read its text files safely.

A research repository holds code next to checkpoints, datasets, LFS pointers and vendored
environments. Every file we decline to read is still listed with the reason, so a reviewer can
tell "not there" from "not read". Symlinks are never followed: a link could lead the miner (and
later the agent's tools) out of the repository.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from expcurate.records import RepoFile

# Directories that hold installed or generated material, never the paper's own code.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".ipynb_checkpoints",
        "site-packages",
        ".eggs",
        ".idea",
        ".cache",
    }
)

LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyx": "python",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".slurm": "shell",
    ".ipynb": "notebook",
    ".md": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".jsonl": "jsonl",
    ".toml": "toml",
    ".cfg": "ini",
    ".ini": "ini",
    ".csv": "csv",
    ".tsv": "csv",
    ".log": "log",
    ".out": "log",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".java": "java",
    ".js": "javascript",
    ".ts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".r": "r",
    ".jl": "julia",
    ".m": "matlab",
    ".lua": "lua",
    ".scala": "scala",
    ".tex": "tex",
    ".html": "html",
    ".css": "css",
}
_NAMED = {"makefile": "make", "dockerfile": "docker", "license": "text", "readme": "text"}

# Extensions that are binary by nature: no need to open them to know.
BINARY_EXTS = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".tif",
        ".tiff",
        ".ico",
        ".webp",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".tar",
        ".rar",
        ".pt",
        ".pth",
        ".ckpt",
        ".bin",
        ".safetensors",
        ".h5",
        ".hdf5",
        ".npy",
        ".npz",
        ".pkl",
        ".pickle",
        ".pk",
        ".onnx",
        ".tflite",
        ".pb",
        ".so",
        ".dll",
        ".dylib",
        ".o",
        ".a",
        ".pyc",
        ".pyd",
        ".exe",
        ".class",
        ".jar",
        ".whl",
        ".mp3",
        ".wav",
        ".flac",
        ".mp4",
        ".avi",
        ".mov",
        ".mkv",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".xlsx",
        ".xls",
        ".docx",
        ".pptx",
        ".parquet",
        ".feather",
        ".arrow",
        ".db",
        ".sqlite",
        ".mat",
        ".nii",
        ".dcm",
        ".svgz",
    ]
)
LFS_POINTER_MAX = 1024
NOTEBOOK_SIZE_FACTOR = 8  # notebooks carry their outputs; their code is a small part


@dataclass
class SourceFile:
    """A listed file and, when it was read, its text (never kept beyond one mining pass)."""

    record: RepoFile
    text: str | None = None
    note: str = ""  # e.g. "decoded as latin-1"


def language_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    if name in _NAMED:
        return _NAMED[name]
    dot = name.rfind(".")
    return LANGUAGES.get(name[dot:], "") if dot > 0 else ""


def is_skipped_dir(name: str) -> bool:
    return name in SKIP_DIRS or name.endswith(".egg-info")


def inside(root: Path, target: Path) -> bool:
    """True when `target` (already resolved) lies within the resolved `root`."""
    try:
        target.relative_to(root)
    except ValueError:
        return False
    return True


def walk(
    root: Path, *, max_file_bytes: int, max_files: int, skipped_dirs: list[str] | None = None
) -> Iterator[SourceFile]:
    """Yield files in a stable (sorted) order; stops after `max_files` entries.

    Skipped vendored directories are appended to `skipped_dirs` so the caller can report them.
    """
    root = root.resolve()
    count = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        rel_dir = base.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        kept_dirs: list[str] = []
        linked_dirs: list[str] = []
        for d in sorted(dirnames):
            if (base / d).is_symlink():
                linked_dirs.append(d)
            elif is_skipped_dir(d):
                if skipped_dirs is not None and d != ".git":
                    skipped_dirs.append(prefix + d)
            else:
                kept_dirs.append(d)
        dirnames[:] = kept_dirs
        for name in sorted([*filenames, *linked_dirs]):
            if name == ".git":  # a worktree's or submodule's pointer to its repository
                continue
            if count >= max_files:
                return
            count += 1
            yield read_file(root, prefix + name, max_file_bytes=max_file_bytes)


def read_file(root: Path, rel: str, *, max_file_bytes: int) -> SourceFile:
    """Classify one file and read it if it is text we can use."""
    path = root / rel
    language = language_of(rel)
    rec = RepoFile(path=rel, language=language)
    if path.is_symlink():
        target = path.resolve()
        rec.skipped = (
            "symlink inside repository" if inside(root, target) else "symlink outside repository"
        )
        return SourceFile(rec)
    try:
        size = path.stat().st_size
    except OSError as exc:
        rec.skipped = f"unreadable ({exc.strerror})"
        return SourceFile(rec)
    rec.size = size
    if not path.is_file():
        rec.skipped = "not a regular file"
        return SourceFile(rec)
    ext = rel[rel.rfind(".") :].lower() if "." in rel.rsplit("/", 1)[-1] else ""
    if ext in BINARY_EXTS and size > LFS_POINTER_MAX:  # small ones may be LFS pointers
        rec.skipped = "binary"
        return SourceFile(rec)
    limit = max_file_bytes * (NOTEBOOK_SIZE_FACTOR if language == "notebook" else 1)
    if size > limit:
        rec.skipped = f"too large ({size} bytes > {limit})"
        return SourceFile(rec)
    try:
        data = path.read_bytes()
    except OSError as exc:
        rec.skipped = f"unreadable ({exc.strerror})"
        return SourceFile(rec)
    if data.startswith(b"version https://git-lfs"):
        rec.skipped = "git-lfs pointer"
        return SourceFile(rec)
    if b"\x00" in data[:8192] or ext in BINARY_EXTS:
        rec.skipped = "binary"
        return SourceFile(rec)
    text, note = decode(data)
    if text is None:
        rec.skipped = "undecodable text"
        return SourceFile(rec)
    rec.lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return SourceFile(rec, text, note)


def decode(data: bytes) -> tuple[str | None, str]:
    """UTF-8 first, then latin-1 if the result still looks like text."""
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError:
        pass
    text = data.decode("latin-1")
    control = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    control += sum(1 for ch in text if 0x7F <= ord(ch) < 0xA0)
    if control > max(8, len(text) // 20):
        return None, ""
    return text, "decoded as latin-1"


def notebook_text(raw: str) -> str:
    """The cells' sources of a notebook (outputs dropped): what a reader of the notebook sees."""
    try:
        nb = json.loads(raw)
    except ValueError:
        return raw
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return raw
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        src = cell.get("source", "")
        parts.append("".join(src) if isinstance(src, list) else str(src))
    return "\n".join(parts)


def notebook_lines(raw: str) -> list[tuple[int, str]]:
    """(line number in the .ipynb file, source line) for every cell source line.

    Keeping the file's own line numbers lets a command or reference found in a notebook be
    cited as `notebook.ipynb:68`, which a reviewer can open.
    """
    out: list[tuple[int, str]] = []
    in_source = False
    for no, line in enumerate(raw.splitlines(), start=1):
        s = line.strip()
        if s.startswith('"source": ['):
            in_source = not s.endswith("]") and not s.endswith("],")
            continue
        if s.startswith('"source": "'):
            value = _json_string(s.split(":", 1)[1])
            if value is not None:
                out.extend((no, part) for part in value.splitlines())
            continue
        if in_source:
            if s in ("]", "],"):
                in_source = False
                continue
            value = _json_string(s)
            if value is not None:
                out.append((no, value.rstrip("\n")))
    return out


def _json_string(text: str) -> str | None:
    text = text.strip().rstrip(",")
    if not (text.startswith('"') and text.endswith('"')):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def looks_like_data(path: str, text: str) -> bool:
    """Tables, dumps and logs: many numbers, few words worth indexing in full."""
    if path.rsplit(".", 1)[-1].lower() in ("csv", "tsv", "jsonl", "log", "out", "dat"):
        return True
    head = text[:4000]
    digits = sum(ch.isdigit() for ch in head)
    return len(head) > 200 and digits > 0.35 * len(head)
