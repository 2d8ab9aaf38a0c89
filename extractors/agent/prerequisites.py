"""What a documented evaluation needs run before it, besides the training.

A README often writes an evaluation's input with an earlier command: TRICE's `generate.py
... --output_path ../data/dev/math/math_response.json`, then `evaluate.py --data_path
../data/dev/math/math_response.json`. The earlier command that writes a path the evaluation
reads runs between the training and the evaluation.
"""

from __future__ import annotations

import re

from expcurate.records import DocCommand

# a file or folder path, never a number (`--timeout 5.0`)
_PATH = re.compile(r"/|[A-Za-z]\.\w{1,5}$")
# an option naming where a command writes
_WRITES = re.compile(r"(?i)^--?[\w-]*(?:out|save|target|dest|dump|write)[\w-]*$")


def written_paths(command: str) -> set[str]:
    """The file paths a command's output options name (`--output_path x/y.json`)."""
    words = command.replace("=", " ").split()
    return {
        words[k + 1]
        for k, w in enumerate(words[:-1])
        if _WRITES.match(w) and _PATH.search(words[k + 1])
    }


def producers(earlier: list[DocCommand], evaluation: DocCommand) -> list[DocCommand]:
    """Of the commands documented before the evaluation, those writing a path it reads, in
    the document's order."""
    reads = set(evaluation.text.replace("=", " ").split())
    return [c for c in earlier if written_paths(c.text) & reads]
