"""Which checkpoint an evaluation chained after a training reads.

An evaluation program often loads the checkpoint an option names by number
(`"checkpoint_{}.tar".format(args.start_epoch)` in Contrastive Clustering's `cluster.py`),
with a default (0) that names no checkpoint the training wrote. When the repository's code
writes checkpoints under that same name by epoch, the training's last is the one its epochs
option says; the evaluation's run sets its option to that number.
"""

from __future__ import annotations

import re

from expcurate.records import CliFlag
from extractors.repo import RepoSearch

# a checkpoint file name built from a parsed option: "checkpoint_{}.tar".format(args.x) or
# f"checkpoint_{args.x}.tar"
_READS = (
    re.compile(r"""["']([\w./-]*)\{\}([\w./-]*)["']\s*\.format\(\s*(?:args|opt|cfg)\.(\w+)\s*\)"""),
    re.compile(r"""f["']([\w./-]*)\{(?:args|opt|cfg)\.(\w+)\}([\w./-]*)["']"""),
)
_CHECKPOINT_NAME = re.compile(r"(?i)ckpt|checkpoint|model|epoch|\.pth?|\.tar|\.pt\b")
EPOCHS = ("--epochs", "--epoch", "--num_epochs", "--n_epochs", "--max_epochs", "--train_epochs")


def read_by_number(search: RepoSearch, program: str) -> tuple[str, str, str] | None:
    """The checkpoint name's prefix and suffix, and the option it is numbered by, when the
    program loads one so (`("checkpoint_", ".tar", "start_epoch")`)."""
    for line in search.lines(program):
        for i, rx in enumerate(_READS):
            m = rx.search(line)
            if m is None:
                continue
            prefix, option, suffix = (m[1], m[3], m[2]) if i == 0 else (m[1], m[2], m[3])
            if _CHECKPOINT_NAME.search(prefix + suffix):
                return prefix, suffix, option
    return None


def written_by_epoch(search: RepoSearch, prefix: str, suffix: str, reader: str) -> bool:
    """Some other file of the repository writes checkpoints under the same name, numbered by
    something else than the reader's option (`save_model`'s `current_epoch`)."""
    template = re.escape(prefix) + r"\{[^}]*\}" + re.escape(suffix)
    return any(path != reader for path, _, _ in search.grep(template, max_hits=20))


def saved_by_number(search: RepoSearch, program: str) -> tuple[str, str, str] | None:
    """`read_by_number`, when another file saves checkpoints under that name (else the
    option names a file of the user's)."""
    numbered = read_by_number(search, program)
    if numbered and written_by_epoch(search, numbered[0], numbered[1], program):
        return numbered
    return None


def last_epoch(settings: str, flags: list[CliFlag]) -> str | None:
    """The number of epochs the training runs: as its command sets it, else its default."""
    words = settings.split()
    for name in EPOCHS:
        if name in words and words.index(name) + 1 < len(words):
            value = words[words.index(name) + 1]
            return value if value.isdigit() else None
    for f in flags:
        if f.name in EPOCHS and f.default.strip("'\"").isdigit():
            return f.default.strip("'\"")
    return None
