"""Read-only tools over one repository: search (BM25), grep, read lines, outline.

These are the only way the setup agent (heuristic or LLM) sees the code, so they are also
the security boundary: every path is checked to stay inside the repository, through `..`,
absolute paths or symlinks alike.
"""

from __future__ import annotations

import ast
import functools
import io
import math
import re
import time
import tokenize
from collections import Counter
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import regex

from expcurate.records import RepoIndex
from expcurate.records.names import squash

from .files import inside, looks_like_data, notebook_lines, notebook_text
from .pysource import outline as py_outline
from .pysource import parse

_RAW = re.compile(r"[A-Za-z0-9_]+(?:\.[0-9]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*$")
PATH_WEIGHT = 4.0  # a word in a file's path says more about the file than one in its body
MAX_INDEXED_CHARS = 400_000
GREP_SECONDS = 2.0  # the whole of one regex search, over every file
TEXT_CACHE_CHARS = 64_000_000  # the text kept read for all the tasks of one repository
K1, B = 1.2, 0.75
DATA_PREFIX_CHARS = 2000


class RepoPathError(ValueError):
    """A path given to a repository tool that is not a readable file inside the repository."""


def tokens(text: str) -> list[str]:
    """Lower-cased words plus their snake/camel-case parts: `MogaNet_T` -> moganet_t, moganet,
    t, moga, net. Decimals stay whole (`0.001`) so numbers from a task can match configs."""
    out: list[str] = []
    for raw in _RAW.findall(text):
        raw = raw.strip("_")
        if not raw:
            continue
        out.append(raw.lower())
        if "." in raw:
            continue
        pieces = [p for p in raw.split("_") if p]
        if len(pieces) > 1:
            out.extend(p.lower() for p in pieces)
        for piece in pieces:
            camel = _CAMEL.findall(piece)
            if len(camel) > 1:
                out.extend(c.lower() for c in camel)
    return out


_SUFFIXES = (
    "izations", "ization", "ations", "ation", "izers", "izer", "izing", "ized", "izes", "ize",
    "ments", "ment", "ings", "ing", "ions", "ion", "ness", "ities", "ity", "ies", "ates", "ated",
    "ating", "ate", "ers", "er", "ors", "or", "ed", "es", "s",
)  # fmt: skip


@functools.lru_cache(maxsize=1 << 16)  # pure, and called for every word of every file
def stem(word: str) -> str:
    """Crude suffix stripping so `visualization`, `visualize` and `visualizing` meet."""
    if len(word) <= 4 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            if suffix == "s" and word.endswith("ss"):
                return word
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    """Search terms: tokens, stemmed."""
    return [stem(t) for t in tokens(text)]


def path_tokens(path: str) -> list[str]:
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return tokens(stem.replace("/", " ").replace("-", " "))


class RepoSearch:
    """Search, grep, read and outline, confined to one repository's indexed text files."""

    def __init__(self, root: Path, index: RepoIndex) -> None:
        self.root = Path(root).resolve()
        self.index = index
        self.readable = sorted(f.path for f in index.files if not f.skipped)
        self._readable = set(self.readable)
        self._post: dict[str, list[tuple[str, float]]] | None = None
        self._len: dict[str, float] = {}
        self._avg = 1.0
        self._lines: dict[str, list[str]] = {}
        self._texts: dict[str, str] = {}  # by the path asked for: the repository stays put
        self._cached_chars = 0
        self._code_terms: dict[str, frozenset[str]] = {}
        self._code_texts: dict[str, str] = {}
        self._implemented: dict[str, bool] = {}  # `implements`, by the squashed name

    # ------------------------------------------------------------ confinement

    def resolve(self, path: str) -> Path:
        """The absolute file for a repo-relative path; raises RepoPathError if it escapes."""
        if not isinstance(path, str) or not path.strip():
            raise RepoPathError("empty path; give a path relative to the repository root")
        pure = PurePosixPath(path.strip().replace("\\", "/"))
        if pure.is_absolute() or re.match(r"^[A-Za-z]:", str(pure)):
            raise RepoPathError(
                f"{path!r} is absolute; give a path relative to the repository root"
            )
        if ".." in pure.parts:
            raise RepoPathError(f"{path!r} uses '..'; paths must stay inside the repository")
        if ".git" in pure.parts:
            raise RepoPathError(f"{path!r} is inside .git, which the tools do not read")
        full = (self.root / pure).resolve()
        if not inside(self.root, full):
            raise RepoPathError(f"{path!r} resolves outside the repository (symlink); not readable")
        return full

    def _text_path(self, path: str) -> tuple[str, Path]:
        full = self.resolve(path)
        rel = full.relative_to(self.root).as_posix()
        if rel not in self._readable:
            entry = self.index.file(rel)
            why = f" ({entry.skipped})" if entry and entry.skipped else ""
            raise RepoPathError(f"{path!r} is not a readable text file of the repository{why}")
        return rel, full

    def text(self, path: str) -> str:
        """A readable file's text, read once for every reader of the repository (up to
        `TEXT_CACHE_CHARS` of text in all; past that, read again each time)."""
        if (cached := self._texts.get(path)) is not None:
            return cached
        _rel, full = self._text_path(path)
        data = full.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        if self._cached_chars + len(text) <= TEXT_CACHE_CHARS:
            self._texts[path] = text
            self._cached_chars += len(text)
        return text

    def lines(self, path: str) -> list[str]:
        """A file's lines, read once for every reader of the repository ([] when it cannot be
        read: outside the repository, not a text file of it, or gone)."""
        if path not in self._lines:
            try:
                self._lines[path] = self.text(path).splitlines()
            except (RepoPathError, OSError, ValueError):
                self._lines[path] = []
        return self._lines[path]

    # ------------------------------------------------------------ tools

    def ls(self, directory: str = "") -> list[str]:
        """Readable files under a directory (repo-relative)."""
        if directory.strip(" /"):
            rel = self.resolve(directory).relative_to(self.root).as_posix()
            prefix = rel.rstrip("/") + "/"
            return [p for p in self.readable if p.startswith(prefix)]
        return list(self.readable)

    def read(self, path: str, start: int = 1, end: int | None = None) -> str:
        """Lines `start`..`end` (1-based, inclusive) of a file."""
        if start < 1 or (end is not None and end < start):
            raise RepoPathError(f"bad line range {start}-{end}; lines start at 1 and end >= start")
        lines = self.text(path).splitlines()
        return "\n".join(lines[start - 1 : end if end is not None else len(lines)])

    def grep(
        self, pattern: str, max_hits: int = 50, under: str = "", seconds: float = GREP_SECONDS
    ) -> list[tuple[str, int, str]]:
        """(path, line number, line) for lines matching a regex (a bad regex is taken literally).

        The pattern may come from a model: matching runs under a time limit for the whole
        search, so a pattern that backtracks without end (`(\\w+\\s?)*$!`) fails with
        RepoPathError (reported to the model) instead of hanging the stage."""
        try:
            rx = regex.compile(pattern)
        except regex.error:
            rx = regex.compile(regex.escape(pattern))
        deadline = time.monotonic() + seconds
        hits: list[tuple[str, int, str]] = []

        def found(text: str) -> bool:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                return rx.search(text, timeout=left) is not None
            except TimeoutError:
                raise RepoPathError(
                    f"the pattern took longer than {seconds:g} s to match; use a simpler pattern "
                    "or plain words"
                ) from None

        for path in self.ls(under):
            try:
                text = self.text(path)
            except (OSError, RepoPathError):
                continue
            if not found(text):
                continue
            # a notebook's cells only, at their lines in the file: its outputs (plots as
            # base64, tables of numbers) would match any short pattern
            numbered = (
                notebook_lines(text)
                if path.endswith(".ipynb")
                else enumerate(text.splitlines(), start=1)
            )
            for no, line in numbered:
                if found(line):
                    hits.append((path, no, line.strip()[:240]))
                    if len(hits) >= max_hits:
                        return hits
        return hits

    def outline(self, path: str) -> list[tuple[str, str, int, int]]:
        """(kind, name, start, end) of classes/functions (Python) or headings (Markdown)."""
        text = self.text(path)
        if path.endswith(".py"):
            tree = parse(text)
            return [(i.kind, i.name, i.start, i.end) for i in py_outline(tree)] if tree else []
        if path.lower().endswith(".md"):
            return _md_outline(text)
        return []

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        scores = self.scores(query)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(p, round(s, 6)) for p, s in ranked[:k]]

    def scores(self, query: str) -> dict[str, float]:
        """BM25 score of every file that shares a term with the query."""
        post = self._build()
        n = len(self._len)
        out: dict[str, float] = {}
        for term, qtf in Counter(terms(query)).items():
            hits = post.get(term)
            if not hits:
                continue
            idf = math.log(1 + (n - len(hits) + 0.5) / (len(hits) + 0.5))
            for path, tf in hits:
                norm = K1 * (1 - B + B * self._len[path] / self._avg)
                out[path] = out.get(path, 0.0) + qtf * idf * tf * (K1 + 1) / (tf + norm)
        return out

    def document_frequency(self, term: str) -> int:
        return len(self._build().get(stem(term), ()))

    def written(self, name: str, code: bool = False) -> bool:
        """A name of several parts (`imagenet_10`) occurs as one word with any separator or
        none between its parts (`ImageNet-10`, `imagenet10`, `IMAGENET_10`): the index holds
        its parts apart, so only the files holding every word part are read. With `code`, in
        code proper only (`code_text`)."""
        parts = [p for p in re.split(r"[_\-\s]+", name.lower()) if p]
        return len(parts) >= 2 and bool(self.where_written(name, first=True, code=code))

    def where_written(self, name: str, first: bool = False, code: bool = False) -> list[str]:
        """The files where `name` occurs as one word, its parts joined by any separator or
        none (`ScienceQA`, `imagenet_10` as `ImageNet-10`); with `first`, the first only;
        with `code`, in code proper only (`code_text`)."""
        parts = [p for p in re.split(r"[_\-\s]+", name.lower()) if p]
        if not parts:
            return []
        post = self._build()
        paths: set[str] | None = None
        for part in parts:
            if part.isdigit():
                continue
            holding = {path for path, _ in post.get(stem(part), ())}
            paths = holding if paths is None else paths & holding
        if not paths:
            return []
        rx = re.compile(
            r"(?<![A-Za-z0-9])" + r"[-_ ]?".join(map(re.escape, parts)) + r"(?![A-Za-z0-9])",
            re.IGNORECASE,
        )
        out: list[str] = []
        for path in sorted(paths):
            try:
                text = self._code_text(path) if code else self.text(path)[:MAX_INDEXED_CHARS]
                if rx.search(text):
                    out.append(path)
                    if first:
                        break
            except (OSError, RepoPathError):
                continue
        return out

    def implements(self, name: str) -> bool:
        """The repository's code holds `name` as a name of its own: a file's (pascl.py), a
        Python name's (`PASCLLoss`, `pos_cg`, `args.oe`), a string its code tests or offers
        as a choice (`args.method == 'pascl'`, `choices=[...]`, a registry's key), or a word
        of a shell command or config (`--method pascl`), or what a definition's docstring
        says it implements ("the implementation of `HamNet`"). A name only in messages,
        paths, other docstrings or comments ("it is just the OE baseline") is not
        implemented here."""
        wanted = squash(name)
        if len(wanted) < 2:
            return False
        if wanted not in self._implemented:  # asked again for each task of the paper
            self._implemented[wanted] = self._implements(name, wanted)
        return self._implemented[wanted]

    def _implements(self, name: str, wanted: str) -> bool:
        stems = (PurePosixPath(p).stem for p in self.readable)
        if any(_names(wanted, s) for s in stems):
            return True
        whole = re.compile(rf"(?<![A-Za-z0-9]){_spelled(name)}(?![A-Za-z0-9])", re.I)
        for path in self.where_written(name):
            suffix = PurePosixPath(path).suffix.lower()
            if suffix == ".py":
                tree = parse(self.text(path)[:MAX_INDEXED_CHARS])
                if tree is not None and any(_names(wanted, n) for n in _own_names(tree)):
                    return True
            elif suffix in _COMMAND_FILES and whole.search(self._code_text(path)):
                return True
        return False

    def definition_of(self, name: str) -> tuple[str, int, str] | None:
        """The first function or class of the repository whose name holds `name` as a run
        of its parts (`oe_loss_fn` for OE), as (path, line, its name); None when the
        repository does not implement the name (`implements`) or defines nothing so named."""
        if not self.implements(name):
            return None
        wanted = squash(name)
        for path in self.where_written(name):
            if not path.endswith(".py"):
                continue
            tree = parse(self.text(path)[:MAX_INDEXED_CHARS])
            found = sorted(
                (n.lineno, n.name)
                for n in (ast.walk(tree) if tree is not None else ())
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and _names(wanted, n.name)
            )
            if found:
                return path, found[0][0], found[0][1]
        return None

    def in_code(self, term: str) -> bool:
        """The word occurs in code proper: a name or a string of a Python file, a shell
        command, a config value. Not only in documentation or comments (a README's table of
        the paper's results, "# as BAN does")."""
        key = stem(term)
        return any(key in self._terms_of_code(path) for path, _ in self._build().get(key, ()))

    def _terms_of_code(self, path: str) -> frozenset[str]:
        if path not in self._code_terms:
            try:
                text = self._code_text(path)
            except (OSError, RepoPathError):
                text = ""
            self._code_terms[path] = frozenset(terms(text))
        return self._code_terms[path]

    def _code_text(self, path: str) -> str:
        """The file's code proper (`code_text`), read once for all the tasks."""
        if path not in self._code_texts:
            self._code_texts[path] = code_text(path, self.text(path)[:MAX_INDEXED_CHARS])
        return self._code_texts[path]

    # ------------------------------------------------------------ index

    def _build(self) -> dict[str, list[tuple[str, float]]]:
        """Inverted index term -> [(path, weighted term frequency)], built on first use."""
        if self._post is not None:
            return self._post
        post: dict[str, list[tuple[str, float]]] = {}
        for path in self.readable:
            try:
                text = self.text(path)
            except (OSError, RepoPathError):
                continue
            # a notebook's cells, read from the whole file: cut first, a notebook whose outputs
            # (images as base64) run past the limit was indexed as broken JSON, outputs and all
            notebook = path.endswith(".ipynb")
            text = (notebook_text(text) if notebook else text)[:MAX_INDEXED_CHARS]
            if not notebook and looks_like_data(path, text):
                text = text[:DATA_PREFIX_CHARS]  # a table of numbers: its head says what it is
            counts: dict[str, float] = dict(Counter(terms(text)))
            for t in path_tokens(path):
                counts[stem(t)] = counts.get(stem(t), 0.0) + PATH_WEIGHT
            self._len[path] = float(sum(counts.values()))
            for term, c in counts.items():
                post.setdefault(term, []).append((path, float(c)))
        self._post = post
        self._avg = (sum(self._len.values()) / len(self._len)) if self._len else 1.0
        return post


_PROSE = (".md", ".rst", ".txt", ".tex", ".html", ".htm", ".bib", ".cff")
_HASH_COMMENT = re.compile(r"(?m)(?:^|\s)#(?![!{]).*$")


_COMMAND_FILES = {".sh", ".bash", ".zsh", ".slurm", ".yaml", ".yml", ".cfg", ".toml", ".ini"}


def _spelled(name: str) -> str:
    """A regex for `name` with any separator or none between its parts ("POS-CG", pos_cg)."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    return r"[-_ ]?".join(map(re.escape, parts))


def _names(wanted: str, name: str) -> bool:
    """`name` is `wanted` (squashed), or holds it as a run of its snake or camel parts:
    `PASCLLoss` and `pos_cg_head` hold "pascl" and "poscg"; `does` holds no "oe"."""
    parts = [p.lower() for chunk in re.split(r"[^A-Za-z0-9]+", name) for p in _CAMEL.findall(chunk)]
    return any(
        "".join(parts[i:j]) == wanted
        for i in range(len(parts))
        for j in range(i + 1, len(parts) + 1)
    )


def _own_names(tree: ast.Module) -> Iterator[str]:
    """The names a Python module gives its own things, and the strings its code tests or
    offers as choices; not its messages, paths or docstrings."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
            # "This head is the implementation of `HamNet`": what the definition implements
            yield from _IMPLEMENTS.findall(ast.get_docstring(node) or "")
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.arg
            if node.arg == "choices":
                yield from _strings(node.value)
        elif isinstance(node, ast.alias):
            yield node.asname or node.name
        elif isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                yield from _strings(side)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if key is not None:
                    yield from _strings(key)
        elif isinstance(node, ast.MatchValue):
            yield from _strings(node.value)


_IMPLEMENTS = re.compile(r"\bimplement(?:s|ation of)\s+(?:the\s+)?`*([A-Za-z][\w-]*)")


def _strings(node: ast.expr) -> Iterator[str]:
    """The string constants of a value or of a list, tuple or set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        for elt in node.elts:
            yield from _strings(elt)


def code_text(path: str, text: str) -> str:
    """What of a file is code: nothing of documentation; a Python file's names and strings
    (its docstrings describe the repository's own things), not its comments; another file
    less its `#` comments."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(_PROSE) or name.startswith(("readme", "license", "licence", "changelog")):
        return ""
    if not name.endswith(".py"):
        return _HASH_COMMENT.sub(" ", text)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return _HASH_COMMENT.sub(" ", text)
    return " ".join(t.string for t in tokens if t.type in (tokenize.NAME, tokenize.STRING))


def _md_outline(text: str) -> list[tuple[str, str, int, int]]:
    heads: list[tuple[int, str, int]] = []
    fence = False
    lines = text.splitlines()
    for no, line in enumerate(lines, start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _HEADING.match(line)
        if m:
            heads.append((len(m.group(1)), m.group(2), no))
    out: list[tuple[str, str, int, int]] = []
    for i, (level, title, no) in enumerate(heads):
        end = len(lines)
        for lvl2, _t, no2 in heads[i + 1 :]:
            if lvl2 <= level:
                end = no2 - 1
                break
        out.append(("heading", title, no, end))
    return out
