"""Arms a config registry defines: the entries a run's config list names by key.

A program may read what to run from a config file that lists it by name
(`assignments: - agent: [gpt-3.5-turbo-0613]` in AgentBench's configs/assignments/default.yaml),
each name being a top-level entry of a config file in one folder (`vicuna-13b:` in
configs/agents/fs_agent.yaml). An arm that folder defines runs by setting the list to the arm's
entry; an arm of the same variable no entry defines is added to the folder as its siblings are.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from expcurate.records import ConfigFile
from extractors.repo import RepoSearch

from .arms import Arm, about_data, numeric, value_forms
from .run import Run

# a top-level key of a YAML file, at the start of its line
_TOP_KEY = re.compile(r"^([A-Za-z0-9][^:#\s]*(?:[^:#\n]*[^:#\s])?)\s*:(?:\s|$)")
# keys a config format gives its own meaning (a base entry, what the file includes)
_NOT_ENTRIES = {"default", "defaults", "import", "imports", "_base_", "base", "include"}
_YAML = (".yaml", ".yml")


def _folded(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


@dataclass(frozen=True)
class Entry:
    """A top-level entry of a registry file: its key as written and the lines it spans."""

    key: str
    path: str
    start: int
    end: int

    @property
    def cited(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"


@dataclass(frozen=True)
class Listing:
    """Where a run selects an arm by name: the list (`key` in `config`) whose items the
    registry folder defines, the arm's entry there (None when it has none) and an entry the
    list names, as the example to follow."""

    run: Run
    config: str
    key: str
    lines: tuple[int, int]  # the list in the config file
    folder: str
    like: Entry
    entry: Entry | None


class Registries:
    """The registry folders of a repository's YAML configs, read once for all its tasks."""

    def __init__(self, search: RepoSearch, configs: list[ConfigFile]) -> None:
        self.search = search
        self.yaml = [c.path for c in configs if c.path.endswith(_YAML)]
        self._entries: dict[str, list[Entry]] = {}

    def entries(self, path: str) -> list[Entry]:
        """The top-level entries of a YAML file, each to the line before the next."""
        if path not in self._entries:
            lines = self.search.lines(path)
            starts = [
                (n, m.group(1).strip("'\""))
                for n, line in enumerate(lines, start=1)
                if (m := _TOP_KEY.match(line))
            ]
            found: list[Entry] = []
            for k, (n, key) in enumerate(starts):
                end = starts[k + 1][0] - 1 if k + 1 < len(starts) else len(lines)
                while end > n and not lines[end - 1].strip():
                    end -= 1
                if key.lower() not in _NOT_ENTRIES:
                    found.append(Entry(key, path, n, end))
            self._entries[path] = found
        return self._entries[path]

    @functools.cached_property
    def _by_key(self) -> dict[str, list[Entry]]:
        """Every YAML file's top-level entries by key, read once for all the tasks."""
        out: dict[str, list[Entry]] = {}
        for p in self.yaml:
            for e in self.entries(p):
                out.setdefault(e.key, []).append(e)
        return out

    def defining(self, key: str, besides: str) -> list[Entry]:
        """The entries named `key` in YAML files other than `besides`."""
        return [e for e in self._by_key.get(key, []) if e.path != besides]

    def in_folder(self, folder: str) -> list[Entry]:
        return [e for p in self.yaml if posixpath.dirname(p) == folder for e in self.entries(p)]

    def listed(
        self, runs: list[Run], configs_of: Callable[[str], list[ConfigFile]]
    ) -> Listing | None:
        """The first list a run's config holds whose items one registry folder defines
        (the plainest run first), with no arm's entry yet: read once per task."""
        if not self.yaml:
            return None
        for run in sorted(runs, key=lambda r: len(r.settings)):
            if run.missing or not run.command:
                continue
            for config in configs_of(run.invocation or run.command):
                for key, items in _lists(config).items():
                    folder, like = self._folder_of(items, config.path)
                    if like is not None:
                        lines = self._list_lines(config.path, key, items)
                        return Listing(run, config.path, key, lines, folder, like, None)
        return None

    def listing(self, arm: Arm, listed: Listing) -> Listing | None:
        """Where the list selects the arm: with the arm's entry in the registry folder, or
        with None when the folder defines none; None for a number or a data set."""
        if numeric(arm.value.split()[0]) or about_data(arm.variable):
            return None
        forms = {_folded(f) for f in value_forms(arm.value)} - {""}
        entry = next((e for e in self.in_folder(listed.folder) if _folded(e.key) in forms), None)
        return replace(listed, entry=entry)

    def _folder_of(self, items: list[str], config: str) -> tuple[str, Entry | None]:
        """The one folder whose YAML files define the listed items, and the first one's
        entry; ("", None) when the items are no registry's (plain values, several folders)."""
        defined = [d for item in items for d in self.defining(item, config)[:1]]
        folders = {posixpath.dirname(d.path) for d in defined}
        if len(defined) != len(items) or len(folders) != 1:
            return "", None
        return folders.pop(), defined[0]

    def _list_lines(self, config: str, key: str, items: list[str]) -> tuple[int, int]:
        """The lines of the list in its config file: from its key to its last item."""
        lines = self.search.lines(config)
        name = key.rsplit(".", 1)[-1]
        item = re.escape(items[-1])
        # the item as a list holds it (`- vicuna-13b`, `[a, vicuna-13b]`), not as a key of
        # another block (`vicuna-13b: 5` under `concurrency:`)
        listed = re.compile(rf"^\s*-\s*['\"]?{item}['\"]?\s*(?:#.*)?$|\[[^\]]*{item}")
        at = [n for n, line in enumerate(lines, start=1) if listed.search(line)]
        if not at:
            return (0, 0)
        last = at[0]
        start = next(
            (
                n
                for n in range(last, 0, -1)
                if re.match(rf"\s*-?\s*{re.escape(name)}\s*:", lines[n - 1])
            ),
            last,
        )
        return (start, last)


def _lists(config: ConfigFile) -> dict[str, list[str]]:
    """A config file's lists of names, by key (`assignments.0.agent`: [gpt-3.5-turbo-0613]):
    not of files it includes, not of numbers."""
    out: dict[str, list[str]] = {}
    for key, value in config.values.items():
        head, _, place = key.rpartition(".")
        if head and place.isdigit() and value and "/" not in value and not numeric(value):
            out.setdefault(head, []).append(value)
    return out


def entry_note(listing: Listing) -> str:
    """What selects an arm the registry defines, for its run's line."""
    e = listing.entry
    assert e is not None
    return f"set {listing.key} in {listing.config} to [{e.key}] first (its entry: {e.cited})"


def selecting(listing: Listing) -> list[tuple[str, str, int, int]]:
    """The steps of an arm's selection: its entry, then the list the run reads."""
    e = listing.entry
    assert e is not None
    out = [(f"Define the {e.key} entry", e.path, e.start, e.end)]
    if listing.lines[0]:
        name = listing.key.rsplit(".", 1)[-1]
        out.append((f"List the {name} entries to run", listing.config, *listing.lines))
    return out


def missing_note(listing: Listing, arm: Arm, like: Entry) -> str:
    """What a reader must do first for an arm of the same kind the registry does not define:
    add its entry, written as a sibling's, and list it."""
    return (
        f"{listing.folder}/ defines no {arm.value}: add its entry to {like.path}, written as "
        f"{like.key}'s is (lines {like.start}-{like.end}), then set {listing.key} in "
        f"{listing.config} to [{arm.value}] first"
    )
