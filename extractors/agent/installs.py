"""How a setup installs what its runs need: the install commands the README nearest the
entry point writes, in its order (`conda create`, `pip install -r requirements.txt`, `python
setup.py develop`), with the requirements file beside it when they skip it, else the
repository's own requirements or environment file."""

from __future__ import annotations

import posixpath
import re
import shlex

from extractors.repo import RepoSearch

_INSTALL = ("requirements.txt", "environment.yml", "environment.yaml", "setup.py")
_READMES = ("README.md", "README.rst", "readme.md", "README.txt", "README")
MAX_INSTALLS = 6
# a line installing what the runs need: pip, conda, mim or the package's own setup.py, as a
# README writes it ("$ pip install timm", "python setup.py develop")
_INSTALLS = re.compile(
    r"^\s*(?:\$\s+)?((?:(?:pip3?|python3? -m pip|conda|mamba|mim) (?:install|create|env create)"
    r"|python3? setup\.py (?:develop|install))\b.*)$"
)


_THIS_PACKAGE = re.compile(r"install\s+(?:-e\s+)?\.(?:\s|$|\[)")
_LOCAL_FILES = re.compile(r"requirements|setup\.py|env create")


def _local(command: str) -> bool:
    """The install is of what a folder holds: its requirements, setup.py or package."""
    return bool(_LOCAL_FILES.search(command) or _THIS_PACKAGE.search(command))


def _from(folder: str, command: str) -> str:
    """An install command of a README in a folder, run from that folder when it names what
    the folder holds (its requirements file, its setup.py, its package)."""
    return f"cd {shlex.quote(folder)} && {command}" if folder and _local(command) else command


def _installs(lines: list[str]) -> list[str]:
    """The install commands of a README, continued lines joined, `pip install --upgrade pip`
    and repeats left out, at most `MAX_INSTALLS`."""
    found: list[str] = []
    i = 0
    while i < len(lines) and len(found) < MAX_INSTALLS:
        m = _INSTALLS.match(lines[i])
        i += 1
        if m is None:
            continue
        command = m.group(1).strip()
        while command.endswith("\\") and i < len(lines):  # `pip install \` goes on below
            command = f"{command[:-1].rstrip()} {lines[i].strip()}"
            i += 1
        command = command.rstrip("\\ ").strip("`")
        if re.search(r"install\s+(?:-U\s+|--upgrade\s+)+pip\s*$", command):
            continue
        if command not in found:
            found.append(command)
    return found


class Installs:
    """The install line of every setup of one repository (`known`: its files)."""

    def __init__(self, known: set[str], search: RepoSearch | None = None) -> None:
        self.known = known
        self.search = search  # to read the READMEs; without it only the files are looked at

    def line(self, entry: str | None) -> str:
        """The usage line installing the dependencies, or "" when nothing says how."""
        if (written := self._readme_installs(entry)) is not None:
            readme, installs = written
            installs = self._with_requirements(readme, installs)
            said = ", then ".join(f"`{c}`" for c in installs)
            return f"Install the dependencies as {readme} does: {said}."
        if install := self._install():
            return f"Install the dependencies: `{install}`."
        return ""

    def _readme_installs(self, entry: str | None) -> tuple[str, list[str]] | None:
        """The install commands the README nearest the entry point writes (`conda create -n
        x python=3.8`, `pip install -r requirements.txt`, `pip install timm fvcore`), in its
        order, at most `MAX_INSTALLS`: the authors' recipe, which a requirements file alone
        may not be (the package itself, a pinned torch). None when no README writes one."""
        if self.search is None:
            return None
        folder = posixpath.dirname(entry or "")
        while True:
            for name in _READMES:
                readme = posixpath.join(folder, name)
                if readme not in self.known:
                    continue
                # an install of a package the folder does not hold (`python setup.py install`
                # after `git clone .../apex && cd apex`) is another repository's
                found = [c for c in _installs(self.search.lines(readme)) if self._holds(folder, c)]
                if found:
                    return readme, [_from(folder, c) for c in found]
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def _holds(self, folder: str, command: str) -> bool:
        """The folder has what the install command installs from it: its setup.py, its
        package (`pip install -e .`), its requirements file."""
        if re.search(r"setup\.py", command):
            return posixpath.join(folder, "setup.py") in self.known
        if _THIS_PACKAGE.search(command):
            here = {posixpath.join(folder, f) for f in ("setup.py", "pyproject.toml", "setup.cfg")}
            return bool(here & self.known)
        if m := re.search(r"-r\s+(\S+)", command):
            return posixpath.normpath(posixpath.join(folder, m.group(1))) in self.known
        return True

    def _with_requirements(self, readme: str, installs: list[str]) -> list[str]:
        """The README's installs, and the requirements file beside it when none of them
        installs it or the package."""
        folder = posixpath.dirname(readme)
        req = posixpath.join(folder, "requirements.txt")
        if req not in self.known or any(_local(c) for c in installs):
            return installs
        return [*installs, _from(folder, "pip install -r requirements.txt")]

    def _install(self) -> str:
        for req in _INSTALL:
            if req in self.known:
                if req.endswith(".txt"):
                    return f"pip install -r {req}"
                return f"conda env create -f {req}" if req.startswith("env") else "pip install -e ."
        return ""
