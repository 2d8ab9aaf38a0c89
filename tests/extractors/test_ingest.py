"""Ingest: a PDF by path or by URL (a real HTTP server on loopback), a repository pinned."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from expcurate.records import Status
from extractors.ingest import ingest

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


@pytest.fixture
def pdf_server(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "www"
    root.mkdir()
    (root / "paper.pdf").write_bytes((SAMPLE / "paper.pdf").read_bytes())
    (root / "page.pdf").write_text("<html>not a pdf</html>")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_pdf_url_is_downloaded_hashed_and_the_repo_pinned(
    tmp_path: Path, pdf_server: str, sample_repo: Path
) -> None:
    result = ingest(
        "p1",
        f"{pdf_server}/paper.pdf",
        str(sample_repo),
        commit=None,
        artifact_dir=tmp_path / "art",
        clones_dir=tmp_path / "clones",
    )
    assert result.status == Status.succeeded, result.errors
    expected = hashlib.sha256((SAMPLE / "paper.pdf").read_bytes()).hexdigest()
    assert result.pdf_sha256 == expected and result.pdf_url.endswith("/paper.pdf")
    assert len(result.commit) == 40


@pytest.mark.parametrize(
    ("name", "message"), [("missing.pdf", "cannot download"), ("page.pdf", "not a PDF")]
)
def test_bad_pdf_urls_fail_ingest_with_the_reason(
    tmp_path: Path, pdf_server: str, sample_repo: Path, name: str, message: str
) -> None:
    result = ingest(
        "p1",
        f"{pdf_server}/{name}",
        str(sample_repo),
        commit=None,
        artifact_dir=tmp_path / "art",
        clones_dir=tmp_path / "clones",
    )
    assert result.status == Status.failed
    assert any(message in e.message for e in result.errors), result.errors
