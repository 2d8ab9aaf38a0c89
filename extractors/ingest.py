"""Ingest: resolve the paper's PDF and repository and pin what we read.

A PDF may be a local path or an http(s) URL (downloaded once into the paper's artifact
folder); the repository goes through `extractors.repo.resolve_repo`, which pins a commit.
"""

from __future__ import annotations

import hashlib
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from expcurate.records import IngestResult, Status

PDF_MAGIC = b"%PDF-"
DOWNLOAD_LIMIT = 200 * 1024 * 1024


class IngestError(ValueError):
    """Bad input: the paper cannot be resolved. The message tells the fix."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def fetch_pdf(source: str, dest_dir: Path, *, timeout: float = 60.0) -> Path:
    """Return a local copy of the PDF, downloading URLs into `dest_dir`."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / "paper.pdf"
    if is_url(source):
        try:
            with urllib.request.urlopen(source, timeout=timeout) as resp:
                data = resp.read(DOWNLOAD_LIMIT + 1)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise IngestError(f"cannot download the PDF from {source}: {reason}") from None
        if len(data) > DOWNLOAD_LIMIT:
            raise IngestError(f"the PDF at {source} is larger than {DOWNLOAD_LIMIT} bytes")
        target.write_bytes(data)
    else:
        path = Path(source).expanduser()
        if not path.exists():
            raise IngestError(f"PDF not found: {source}; pass an existing file or an http(s) URL")
        if not path.is_file():
            raise IngestError(f"PDF path is not a file: {source}")
        if path.resolve() != target.resolve():
            shutil.copyfile(path, target)
    problem = pdf_problem(target, source)
    if problem:
        raise IngestError(problem)
    return target


def pdf_problem(path: Path, name: str = "") -> str | None:
    """Why a local file is not a PDF we can take (empty, no %PDF- header), or None."""
    name = name or str(path)
    with path.open("rb") as fh:
        head = fh.read(1024)
    if not head:
        return f"the PDF {name} is empty (0 bytes)"
    if PDF_MAGIC not in head:
        return f"{name} is not a PDF (no %PDF- header); pass the paper's PDF file"
    return None


def ingest(
    paper_id: str,
    pdf_source: str,
    repo_source: str,
    *,
    commit: str | None,
    artifact_dir: Path,
    clones_dir: Path,
) -> IngestResult:
    """Resolve both inputs; a bad one gives a failed result with the reason, never a raise."""
    from extractors.repo import RepoLoadError, resolve_repo

    result = IngestResult(paper_id=paper_id, pdf_url=pdf_source if is_url(pdf_source) else "")
    try:
        pdf = fetch_pdf(pdf_source, artifact_dir)
        result.pdf_path = str(pdf)
        result.pdf_sha256 = sha256_file(pdf)
    except IngestError as exc:
        result.add_error("ingest", "pdf", str(exc))
    try:
        root, sha = resolve_repo(repo_source, commit or None, clones_dir)
        result.repo_path = str(root)
        result.repo_url = repo_source
        result.commit = sha
    except RepoLoadError as exc:
        result.add_error("ingest", "repository", str(exc))
    if result.errors:
        result.status = Status.failed
    return result
