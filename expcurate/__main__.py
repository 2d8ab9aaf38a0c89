"""The `expcurate` command's process (`expcurate ...` and `python -m expcurate ...`).

Before the command line and the extractors it loads are imported, PyMuPDF's layout add-on is
kept out of the process (`extractors.nolayout`): it loads a model ExpCurate never uses, which
every command would otherwise pay for at start. And the process leaves without the
interpreter's teardown once the command is done and its stores closed (`expcurate.leaving`),
with the command's exit status: about 0.4 s of every command's end.
"""

from __future__ import annotations


def main() -> None:
    from expcurate.leaving import leaving_quickly
    from extractors.nolayout import keep_layout_out

    with leaving_quickly():  # first: its exit handler runs after every other
        keep_layout_out()
        from expcurate.cli import main as cli_main

        cli_main()


if __name__ == "__main__":
    main()
