"""Prompts as versioned files.

A prompt's version is the hash of its text, so a stage run records exactly which wording
produced its drafts and a changed prompt invalidates cached stage results by itself: nobody
has to remember to bump a number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple


class Prompt(NamedTuple):
    text: str
    version: str  # first 12 hex digits of the file's sha256


def load_prompt(path: Path) -> Prompt:
    data = path.read_bytes()
    return Prompt(data.decode("utf-8").strip(), hashlib.sha256(data).hexdigest()[:12])


def combined_version(versions: Iterable[str], prefix: str = "") -> str:
    """One version for a strategy that uses several prompts (order matters)."""
    digest = hashlib.sha256("\n".join(versions).encode()).hexdigest()[:12]
    return f"{prefix}{digest}"
