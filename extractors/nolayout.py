"""Keep PyMuPDF's layout add-on out of a process that never uses it.

pymupdf 2 imports its layout add-on (`pymupdf.layout`) and its markdown helpers
(`pymupdf4llm`) whenever they are installed, and those load an ONNX runtime and model: about
0.5 s (more on a loaded machine) of every process that parses or imports the parser, for
`Page.get_layout` and `to_markdown`, which ExpCurate never calls. A process calls
`keep_layout_out()` before anything imports PyMuPDF; the imports of both then fail the way
PyMuPDF expects when they are not installed, and everything else works as before
(`Page.find_tables` included). This module imports nothing heavy so
that it can run first: the parse child (`extractors._parse_child`) and the `expcurate`
command (`expcurate.__main__`) do.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

SKIPPED = ("pymupdf.layout", "pymupdf4llm")  # the layout model; the markdown helpers loading it


class _Refused(importlib.abc.Loader):
    """Fails the module's import with ImportError, as if it were not installed."""

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        raise ImportError(f"{module.__name__} is kept out of this process (extractors.nolayout)")


class _KeepOut(importlib.abc.MetaPathFinder):
    """Finds the skipped modules first, with a loader that refuses them. A spec is returned
    rather than an error raised, so that `importlib.util.find_spec` (which PyMuPDF's table
    finder calls to decide whether to recommend the add-on) still answers."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if any(fullname == s or fullname.startswith(s + ".") for s in SKIPPED):
            return ModuleSpec(fullname, _Refused())
        return None


def keep_layout_out() -> None:
    """Install the finder (once); a no-op when one of the modules is already imported."""
    if any(s in sys.modules for s in SKIPPED) or any(
        isinstance(f, _KeepOut) for f in sys.meta_path
    ):
        return
    sys.meta_path.insert(0, _KeepOut())
