"""Checking a model's submitted setup before it reaches a reviewer.

A model can cite lines past the end of a file, list a file that does not exist or write a
command with a flag its script never defines. Every such problem is collected per item, so the
agent can send the list back once for repair and then drop exactly the bad items (and say so)
instead of rejecting a mostly right answer. References go through `validate_references`, the
same check the setup stage's validators rely on.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from expcurate.records import REF_RE, STEP_RE, RepoIndex, Setup
from extractors.repo.commands import check_command
from extractors.validate.repo_checks import KEPT_DESPITE, UNSAFE

from .llm_tools import SubmitArgs
from .policy import scrub, validate_references

_LABEL = re.compile(r"^\s*(?:[-*]\s*)?(Step\s+\d+|Final\s+Step)\s*[:.]\s*", re.I)


@dataclass
class Review:
    """A submission, normalised, with its problems by item."""

    setup: Setup
    problems: list[str] = field(default_factory=list)
    bad_requirements: set[int] = field(default_factory=set)  # 0-based
    bad_paths: set[str] = field(default_factory=set)
    # line numbers in usage (0-based) of commands to drop, with why
    bad_commands: dict[int, str] = field(default_factory=dict)
    unlabeled: set[int] = field(default_factory=set)  # fixed by numbering, not dropped
    unsafe_instructions: bool = False  # agent instructions no experiment needs: dropped
    warnings: list[str] = field(default_factory=list)  # problems that are kept, not dropped

    @property
    def ok(self) -> bool:
        return not self.problems

    def finalize(self) -> tuple[Setup | None, list[str]]:
        """The setup without its bad items (None if nothing usable is left), and what went."""
        s = self.setup.model_copy(deep=True)
        notes: list[str] = []
        if self.bad_requirements or self.unlabeled:
            dropped = [s.requirements[i] for i in sorted(self.bad_requirements)]
            s.requirements = relabel(
                [r for i, r in enumerate(s.requirements) if i not in self.bad_requirements]
            )
            notes += [f"dropped requirement with an invalid reference: {r[:160]}" for r in dropped]
        for name in ("source", "masked_source"):
            kept = [p for p in getattr(s, name) if p not in self.bad_paths]
            notes += [
                f"dropped {p} from {name}: not a file of the repository"
                for p in getattr(s, name)
                if p in self.bad_paths
            ]
            setattr(s, name, kept)
        if self.bad_commands:
            lines = s.usage_instructions.splitlines()
            notes += [
                f"dropped command {why}: {lines[i][:160]}"
                for i, why in sorted(self.bad_commands.items())
            ]
            s.usage_instructions = "\n".join(
                ln for i, ln in enumerate(lines) if i not in self.bad_commands
            )
        if self.unsafe_instructions:
            notes.append(f"dropped agent instructions: {s.agent_instructions[:160]}")
            s.agent_instructions = ""
        notes += [f"{KEPT_DESPITE}{w}" for w in self.warnings]
        if s.source and s.no_answer:
            notes.append(f"kept the source and dropped no_answer ({s.no_answer[:120]})")
            s.no_answer = ""
        if not s.source and not s.no_answer:
            return None, [*notes, "nothing usable is left of the submission"]
        if not s.masked_source:
            s.masked_source = list(s.source)
        s.agent_instructions = scrub(s.agent_instructions, s.masked_source)
        return s, notes


def review(args: SubmitArgs, index: RepoIndex, root: Path) -> Review:
    """Normalise a submission and find its problems; scrubbing masked names is not one."""
    source = _paths(args.source)
    masked = _paths(args.masked_source) or list(source)
    setup = Setup(
        source=source,
        masked_source=masked,
        usage_instructions="\n".join(
            ln.rstrip() for ln in args.usage_instructions.strip().splitlines()
        ),
        requirements=[_clean_requirement(r) for r in args.requirements if r.strip()],
        agent_instructions=scrub(args.agent_instructions.strip(), masked),
        no_answer=args.no_answer.strip(),
    )
    out = Review(setup)
    if not source and not setup.no_answer:
        out.problems.append("give the source files, or no_answer with a reason")
        return out
    if source and setup.no_answer:
        out.problems.append("give either source files or no_answer, not both")
    known = {f.path for f in index.files}
    for path in dict.fromkeys(source + masked):
        if path not in known or validate_references(Setup(source=[path]), root):
            out.bad_paths.add(path)
            out.problems.append(f"{path} is not a file of the repository")
    for i, req in enumerate(setup.requirements):
        if not STEP_RE.match(req):
            out.unlabeled.add(i)
            out.problems.append(f"requirement {i + 1} does not start with 'Step k:': {req[:80]}")
            req = f"Step {i + 1}: {req}"
        problems = validate_references(Setup(requirements=[req]), root)
        m = REF_RE.search(req)
        if m and m.group(1) not in known and not problems:
            problems = [f"requirement cites {m.group(1)}, which is not a file of the repository"]
        if problems:
            out.bad_requirements.add(i)
            out.problems += [p.replace("requirement 1", f"requirement {i + 1}") for p in problems]
    if source and not setup.requirements:
        out.problems.append(
            "requirements are empty: trace the steps from the entry point, each ending with "
            "a (path:start-end) reference"
        )
    entries = {e.path: e for e in index.entry_points}
    for i, line in enumerate(setup.usage_instructions.splitlines()):
        if found := UNSAFE.search(line):
            out.bad_commands[i] = "no experiment needs"
            out.problems.append(
                f"command {line[:120]!r} asks for something no experiment needs "
                f"({found.group(0)!r}): run the repository's own scripts only"
            )
            continue
        missing, unknown = check_command(line, known, entries)
        if missing:
            out.bad_commands[i] = "naming a missing file"
            out.problems.append(f"command {line[:120]!r} runs {missing}, which does not exist")
        out.warnings += [f"command {line[:120]!r}: {u}" for u in unknown]
    if found := UNSAFE.search(setup.agent_instructions):
        out.unsafe_instructions = True
        out.problems.append(
            f"agent_instructions ask for something no experiment needs ({found.group(0)!r})"
        )
    out.problems += out.warnings
    return out


def relabel(requirements: list[str]) -> list[str]:
    """Number the steps 1..n again after some were dropped, keeping a final 'Final Step'."""
    out = []
    for i, req in enumerate(requirements, start=1):
        m = _LABEL.match(req)
        body = req[m.end() :] if m else req
        final = bool(m and "final" in m.group(1).lower()) and i == len(requirements)
        out.append(f"{'Final Step' if final else f'Step {i}'}: {body}")
    return out


def _clean_requirement(req: str) -> str:
    """Small slips a reviewer would fix without asking: a bullet, a trailing period, './'."""
    req = req.strip()
    m = _LABEL.match(req)
    if m and not STEP_RE.match(req):
        label = "Final Step" if "final" in m.group(1).lower() else m.group(1).title()
        req = f"{' '.join(label.split())}: {req[m.end() :]}"
    req = re.sub(r"\)\s*[.;,]+$", ")", req)
    return re.sub(r"\((?:\./)+([^()\s]+:\d+(?:-\d+)?)\)$", r"(\1)", req)


def _paths(paths: list[str]) -> list[str]:
    out: list[str] = []
    for raw in paths:
        p = raw.strip().strip("`'\"").replace("\\", "/")
        p = posixpath.normpath(p) if p else p
        while p.startswith("./"):
            p = p[2:]
        if p and p != "." and p not in out:
            out.append(p)
    return out
