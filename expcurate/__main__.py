"""The `expcurate` command's process (`expcurate ...` and `python -m expcurate ...`).

Before the command line and the extractors it loads are imported, PyMuPDF's layout add-on is
kept out of the process (`extractors.nolayout`): it loads a model ExpCurate never uses, which
every command would otherwise pay for at start.
"""

from __future__ import annotations


def main() -> None:
    from extractors.nolayout import keep_layout_out

    keep_layout_out()
    from expcurate.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
