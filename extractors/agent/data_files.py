"""The data files a run's program reads by a path written in its code that the repository
does not have.

numeracy's `train.py` sets `tfile = 'data/train_wiki.json'` under `if args.dataset ==
'WC':` and reads it through its dataset class: a run with `--dataset WC` stops there until
the file is put in place, and nothing else in the setup says where the data goes. Such a
run says which files it reads, at which lines, and where the repository's README links a
file of that name. A file the program writes (`json.dump(..., open('out.json', 'w'))`), a
name joined onto a folder (`os.path.join(root, 'x.json')`), a file on a branch the run's
options do not take, and a file the repository has elsewhere (`run_notes.misplaced` says
that one) are none.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable

from .arms import in_prose
from .run import Run
from .run_notes import READS, run_programs
from .step_filters import assignments

# what a data file's name ends with; weights are `run_notes.unfetched`'s
_DATA = re.compile(
    r"[\w.-]+(?:/[\w.-]+)*\.(?:json|jsonl|csv|tsv|txt|pkl|pickle|npy|npz|h5|hdf5|parquet|mat"
    r"|arrow|feather|xlsx|tfrecords?)"
)
# calls a path passed to is written, made, or taken apart, not read
_NOT_READ = {
    "save", "savetxt", "savez", "savez_compressed", "dump", "to_csv", "to_json", "to_pickle",
    "savefig", "write_text", "write_bytes", "imwrite", "save_pretrained", "FileHandler",
    "SummaryWriter", "makedirs", "mkdir", "join", "basename", "dirname", "split", "splitext",
    "print", "format", "replace", "endswith", "startswith", "remove", "unlink",
}  # fmt: skip
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _writes(node: ast.Call) -> bool:
    """`open(path, 'w')` and its kin: a mode that writes, appends or creates."""
    mode = node.args[1] if len(node.args) > 1 else None
    mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
    return (
        isinstance(mode, ast.Constant)
        and isinstance(mode.value, str)
        and bool(set(mode.value) & set("wax"))
    )


def read_literals(tree: ast.Module) -> list[tuple[int, str]]:
    """The relative data-file paths a program reads as written in it, with their lines: the
    first argument of a reading call (`open('data/x.json')`, `pd.read_csv("y.csv")`), or a
    string bound to a name that is then passed to a call other than a writing one (`tfile =
    'data/train.json'` ... `Dataset(tfile)`), where no call writes through it."""
    # a name, where a data file's path is bound to it, the path
    bound = [
        (name, line, value.value)
        for line, name, value in assignments(tree)
        if isinstance(value, ast.Constant)
        and isinstance(value.value, str)
        and _DATA.fullmatch(value.value)
    ]
    names = {name for name, _, _ in bound}
    passed: set[str] = set()
    written: set[str] = set()  # names and strings a call writes through
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _called(node)
        given = [*node.args, *(k.value for k in node.keywords)]
        not_read = called in _NOT_READ or (called == "open" and _writes(node))
        for arg in given:
            if isinstance(arg, ast.Name) and arg.id in names:
                (written if not_read else passed).add(arg.id)
            elif not_read and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                written.add(arg.value)
        first = node.args[0] if node.args else None
        if (
            called in READS
            and not not_read
            and isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and _DATA.fullmatch(first.value)
        ):
            found.append((node.lineno, first.value))
    found += [(line, path) for name, line, path in bound if name in passed - written]
    out: list[tuple[int, str]] = []
    for line, path in sorted(set(found)):
        if path not in written and not path.startswith(".."):
            out.append((line, posixpath.normpath(path)))
    return out


def readme_links(known: set[str], text_of: Callable[[str], str]) -> dict[str, str]:
    """The URLs the repository's READMEs (any folder) and top-level Markdown files give, by
    the file name each ends with (`.../resolve/main/train_wiki.json` for
    `train_wiki.json`); the first for a name."""
    out: dict[str, str] = {}
    docs = sorted(
        k
        for k in known
        if posixpath.basename(k).lower().startswith("readme")
        or ("/" not in k and k.lower().endswith(".md"))
    )
    for path in docs:
        try:
            text = text_of(path)
        except (OSError, ValueError):
            continue
        for url in _URL.findall(text):
            url = url.rstrip(".,;:")
            name = posixpath.basename(url.split("?")[0].split("#")[0])
            if _DATA.fullmatch(name):
                out.setdefault(name, url)
    return out


def unshipped(
    runs: list[Run],
    programs_of: Callable[[str], list[str]],
    tree_of: Callable[[str], ast.Module | None],
    known: set[str],
    reaches: Callable[[str, Run, int], bool],
    links: dict[str, str],
    read: dict[str, list[tuple[int, str]]] | None = None,
) -> None:
    """A run whose program reads a data file by a path written in its code, on a line its
    options reach (`reaches`: the program, the run, the line), that the repository has
    nowhere says so, with the README's link to a file of that name. `read` keeps each
    program's paths across calls."""
    names = {posixpath.basename(k) for k in known}
    read = {} if read is None else read
    for run, here, program in run_programs(runs, programs_of):
        if not program.endswith(".py"):
            continue
        if program not in read:
            tree = tree_of(program)
            read[program] = read_literals(tree) if tree is not None else []
        wanted = [
            (line, path)
            for line, path in read[program]
            if posixpath.normpath(posixpath.join(here, path)) not in known
            and posixpath.basename(path) not in names
            and reaches(program, run, line)
        ]
        if not wanted:
            continue
        paths = list(dict.fromkeys(p for _, p in wanted))
        lines = [str(n) for n in dict.fromkeys(n for n, _ in wanted)]
        name = posixpath.basename(program)
        where = f"{name}:{lines[0]}" + "".join(f", :{n}" for n in lines[1:])
        them = "it" if len(paths) == 1 else "them"
        note = (
            f"{name} reads {in_prose(paths)} ({where}), which the repository does "
            f"not have: put {them} there first"
        )
        linked = [(p, links[b]) for p in paths if (b := posixpath.basename(p)) in links]
        if linked:
            said = in_prose([f"{posixpath.basename(p)} at {url}" for p, url in linked])
            note += f" (the README links {said})"
        if note not in run.warning:
            run.say(note)
