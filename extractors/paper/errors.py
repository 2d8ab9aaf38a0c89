"""Opening a PDF, and the one error that means "this file is not a readable PDF".

Bad input is not a defect: a missing file, an HTML login page saved as .pdf, a truncated
download or a password-protected PDF each get a `PaperLoadError` whose message says what
the file is and what to do about it, so a batch can record it on the paper and go on.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive (a .docx, .pptx or zipped download?)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"{\\rtf", "an RTF document"),
    (b"%!PS", "a PostScript file"),
]


class PaperLoadError(ValueError):
    """The file cannot be opened as a PDF at all; the message says why and what to do."""


def _sniff(head: bytes) -> str:
    """What a non-PDF file most likely is, from its first bytes."""
    low = head.lstrip().lower()
    if low.startswith((b"<!doctype html", b"<html", b"<head")) or b"<html" in low[:512]:
        return "an HTML page (often a login, paywall or error page saved as .pdf)"
    if low.startswith(b"<?xml") or low.startswith(b"<"):
        return "an XML/HTML document"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if low.startswith((b"{", b"[")):
        return "a JSON document"
    return "not a PDF (no %PDF- header)"


def open_pdf(path: Path) -> tuple[pymupdf.Document, list[tuple[str, str]]]:
    """Open `path` as a PDF or raise `PaperLoadError`; also return notes on repairs made."""
    if not path.exists():
        raise PaperLoadError(f"{path}: no such file; check the path (or download the PDF first)")
    if path.is_dir():
        raise PaperLoadError(f"{path}: is a directory; pass the PDF file inside it")
    size = path.stat().st_size
    if size == 0:
        raise PaperLoadError(
            f"{path}: the file is empty (0 bytes); the download probably failed, fetch it again"
        )
    with path.open("rb") as fh:
        head = fh.read(1024)
    if b"%PDF-" not in head:
        raise PaperLoadError(
            f"{path}: {_sniff(head)}, not a PDF; download the paper's PDF itself "
            "(e.g. the arXiv /pdf/ link, not the abstract page)"
        )
    pymupdf.TOOLS.mupdf_warnings(reset=True)
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as exc:
        raise PaperLoadError(
            f"{path}: corrupt PDF that MuPDF cannot open ({exc}); download it again"
        ) from exc
    warnings = pymupdf.TOOLS.mupdf_warnings(reset=True)
    if doc.needs_pass:
        doc.close()
        raise PaperLoadError(
            f"{path}: the PDF is encrypted and needs a password to open; "
            "save an unencrypted copy (e.g. `qpdf --decrypt --password=PW in.pdf out.pdf`) "
            "and parse that"
        )
    if doc.page_count == 0:
        doc.close()
        raise PaperLoadError(
            f"{path}: corrupt or truncated PDF (no readable pages); download it again"
        )
    notes: list[tuple[str, str]] = []
    if "repair" in warnings.lower():
        notes.append(
            (
                "damaged_pdf",
                "the PDF is damaged (truncated or corrupt) and was repaired while opening; "
                "content may be missing, download it again",
            )
        )
    return doc, notes
