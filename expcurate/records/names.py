"""Names compared and keyed the same way everywhere.

`squash` is how two spellings of one name are compared ("SegNeXt-T" and "segnext t");
`slug` is how a task key is cut from a label or title; `name_key` is how the setup query
writes a name for the repository index ("2-WL" -> "2_wl").
"""

from __future__ import annotations

import re

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def squash(text: str) -> str:
    """Lower case letters and digits only: the form two spellings of a name are compared in."""
    return _NOT_ALNUM.sub("", text.lower())


def slug(text: str, limit: int = 40) -> str:
    """A task key part from a label or title: lower case, dashes, at most `limit` characters."""
    return _NOT_ALNUM.sub("-", text.lower()).strip("-")[:limit]


def name_key(name: str) -> str:
    """A name as the setup query writes it and the index looks it up: lower case, hyphens as
    underscores ("PatchTST" -> "patchtst", "2-WL" -> "2_wl")."""
    return name.lower().replace("-", "_")
