"""The parse child's entry point: `python -m extractors._parse_child REQUEST.json RESULT.json`.

It sits outside `extractors.paper` so that it runs before the package imports PyMuPDF, and
keeps PyMuPDF's layout add-on out of the child (`extractors.nolayout`: about 0.3 s of every
child's start); then `extractors.paper._child` runs, and the child leaves without the
interpreter's teardown (`expcurate.leaving`).
"""

from __future__ import annotations

import sys

from extractors.nolayout import keep_layout_out


def main(argv: list[str]) -> int:
    keep_layout_out()
    from extractors.paper._child import main as child_main

    return child_main(argv)


if __name__ == "__main__":
    from expcurate.leaving import leaving_quickly

    with leaving_quickly():  # no teardown once the result is written: 0.07 s of every parse
        sys.exit(main(sys.argv[1:]))
