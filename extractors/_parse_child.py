"""The parse child's entry point: `python -m extractors._parse_child REQUEST.json RESULT.json`.

It sits outside `extractors.paper` so that it runs before the package imports PyMuPDF: pymupdf
2 imports its optional layout add-on (`pymupdf.layout`) whenever it is installed, and that
loads an ONNX model, about 0.3 s of every child's start, for `Page.get_layout`, which the
parser never calls. Here the add-on is kept out, then `extractors.paper._child` runs. Only
this child process is affected; every other process imports PyMuPDF as installed.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

SKIPPED = "pymupdf.layout"


class _SkipLayout(importlib.abc.MetaPathFinder):
    """Answers an import of the layout add-on with ImportError, which PyMuPDF expects when
    the add-on is not installed."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname == SKIPPED or fullname.startswith(SKIPPED + "."):
            raise ImportError(f"{SKIPPED} is not used by the parse child")
        return None


def main(argv: list[str]) -> int:
    sys.meta_path.insert(0, _SkipLayout())
    from extractors.paper._child import main as child_main

    return child_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
