"""Time and memory limits of one parse, so a pathological PDF cannot stall a batch.

A 300-page thesis or a page holding a 50 MB scan is not a defect, but parsing it without
limits can take minutes or exhaust memory. `Budget` carries a monotonic deadline that the
parser checks between pages (stopping with what it has, status `partial`) and a cap on the
pixels a single crop may decode, estimated from image metadata *before* anything is decoded.
"""

from __future__ import annotations

import re
import time

import pymupdf

from expcurate.records import ParsedPaper

STAGE = "parse"
MB = 1024 * 1024
IMAGE_SHARE = 4  # one crop may use up to 1/IMAGE_SHARE of the per-document memory limit


class ImageTooLarge(Exception):
    """Rendering a region would decode more pixels than the cap allows."""

    def __init__(self, needed: int, cap: int) -> None:
        super().__init__(f"needs about {needed / MB:.3g} MB of pixels, limit {cap / MB:.3g} MB")
        self.needed = needed
        self.cap = cap


class Budget:
    """The limits of one `parse_pdf` call; records at most one `time_limit` error."""

    def __init__(self, deadline_s: float | None, max_image_mb: float) -> None:
        self.deadline_s = deadline_s
        self._stop_at = None if deadline_s is None else time.monotonic() + deadline_s
        self.max_image_bytes = int(max_image_mb * MB)
        self._skipped: list[str] = []

    def expired(self) -> bool:
        return self._stop_at is not None and time.monotonic() >= self._stop_at

    def skip(self, what: str) -> None:
        """Note a part of the work left undone because time ran out."""
        self._skipped.append(what)

    def report(self, result: ParsedPaper) -> None:
        """One error that says what was left out and which setting to raise."""
        if not self._skipped:
            return
        result.add_error(
            STAGE,
            "time_limit",
            f"{'; '.join(self._skipped)}: the parse took longer than {self.deadline_s:g} s; "
            "raise EXPCURATE_PARSE_TIMEOUT_S",
        )


def pixel_bytes(images: list[dict], clip: pymupdf.Rect, zoom: float) -> int:
    """Memory a rendering of `clip` at `zoom` may need: the output pixmap plus every image
    drawn into it, decoded at full size (the worst case). `images` is the page's
    `get_image_info()`: metadata only, nothing is decoded to estimate."""
    need = int(clip.width * zoom) * int(clip.height * zoom) * 3
    for info in images:
        if (pymupdf.Rect(info["bbox"]) & clip).is_empty:
            continue
        channels = max(int(info.get("colorspace") or 1), 1) + bool(info.get("has-mask"))
        need += int(info.get("width", 0)) * int(info.get("height", 0)) * channels
    return need


# How an allocation that ran into the memory limit is worded: Python's MemoryError, MuPDF's
# "malloc/calloc/realloc (…) failed" and FzErrorMemory, glibc's ENOMEM, C++'s bad_alloc.
NO_MEMORY = re.compile(
    r"\b(?:m|c|re)alloc\b|out of memory|cannot allocate|memoryerror|FzErrorMemory|bad_alloc",
    re.I,
)


def is_memory_failure(text: str) -> bool:
    return bool(NO_MEMORY.search(text))
