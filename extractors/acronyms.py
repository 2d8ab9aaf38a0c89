"""What a paper's acronyms stand for: "an instance-level contrastive head (ICH)".

Drafting reads the paper's own definitions of the acronyms a task's compared names use and
writes them into the task's method ("The paper spells out ICH as instance-level contrastive
head."), since a table's "ICH Only" means nothing to whoever runs the task without the paper;
setup recovery reads them in the task, so "ICH Only" is looked for in the code as what is
instance-level, and "w/o MSCA" as the attention it spells.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

# words an acronym's letters may pass over ("chain of thought" is CoT, "Tool learning with
# execution feedback" is not spelled by these rules at all)
_MINOR = frozenset({"of", "and", "the", "for", "with", "a", "an", "to", "in", "on", "by"})
# up to eight words, each of letters and hyphens (a line break's "Ex- posure" included)
_WORD = r"[A-Za-z]+(?:-\s?[A-Za-z]+)*"
_ACRONYM = re.compile(r"\b[A-Z][A-Za-z]*[A-Z][a-z]?\b")
_SENTENCE = re.compile(r"\s*The paper spells out \S.*? as [^.]*\.")
MAX_SPELLED = 4


def acronyms(name: str) -> list[str]:
    """The acronyms in a compared name ("ICH + CCH": ICH, CCH): two capitals or more and
    no digit (ETTh1 is a data set's name, not an acronym)."""
    return list(dict.fromkeys(a for a in _ACRONYM.findall(name) if 2 <= len(a) <= 8))


def spelled_out(text: str, acronym: str) -> str:
    """What `text` spells `acronym` out as: the words right before "(ICH)" whose initials
    spell it ("instance-level contrastive head"; "chain-of-thought" for CoT, "Outlier
    Exposure" for "Outlier Ex- posure (OE)"), or what `spelled_sentence` wrote; the first
    definition, "" for none."""
    said = re.search(rf"\bspells out\b[^.]*?\b{re.escape(acronym)} as ([^,.]+)", text)
    if said:
        return said.group(1).strip()
    pattern = rf"((?:{_WORD}\s+){{1,8}})\(\s*{re.escape(acronym)}\s*\)"
    for m in re.finditer(pattern, text):
        words = m.group(1).split()
        # a hyphen a line break left ("Ex- posure") joins one word again
        joined: list[str] = []
        for w in words:
            if joined and joined[-1].endswith("-") and w[:1].islower():
                joined[-1] = joined[-1][:-1] + w
            else:
                joined.append(w)
        start = _spelling_start(tuple(joined), acronym)
        if start is not None:
            return " ".join(joined[start:])
    return ""


def _spelling_start(words: tuple[str, ...], acronym: str) -> int | None:
    """The first of the last words whose initials spell `letters`, each word giving its
    initial or its hyphenated parts' ("multi-scale": m, s), a letter more of a part where the
    acronym goes on in lower case (LoRA's "Lo"); minor words may give none."""
    letters = acronym.lower()
    more = 1 if acronym.isupper() else 3  # letters one part may give

    @cache
    def ends(i: int, j: int) -> int | None:
        # words[:i] must spell letters[:j], ending with words[i-1]; the start index or None
        if j == 0:
            return i
        if i == 0:
            return None
        word = words[i - 1]
        parts = [p for p in re.split(r"-", word) if p]
        for taken in _takes(parts, letters[:j], more):
            if taken == 0:
                continue
            found = ends(i - 1, j - taken)
            if found is not None and (j - taken > 0 or word.lower() not in _MINOR):
                return found
        if word.lower() in _MINOR and i < len(words):
            return ends(i - 1, j)
        return None

    return ends(len(words), len(letters))


def _takes(parts: list[str], letters: str, more: int) -> list[int]:
    """How many of `letters`' last letters one word can spell: its first part's initial (or
    more of its start), then each later part's, or that part passed over; longest first."""
    out: set[int] = set()

    def walk(k: int, spelled: str) -> None:
        if k == len(parts):
            if spelled and letters.endswith(spelled):
                out.add(len(spelled))
            return
        part = parts[k].lower()
        if k > 0:
            walk(k + 1, spelled)  # "instance-level": "level" spells nothing
        for n in range(1, min(len(part), more) + 1):
            walk(k + 1, spelled + part[:n])

    walk(0, "")
    return sorted(out, reverse=True)


def spelled_sentence(definitions: dict[str, str]) -> str:
    """What a task's method says of the acronyms its compared names use ("" for none)."""
    if not definitions:
        return ""
    said = [f"{a} as {long}" for a, long in definitions.items()]
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + ", and " + said[-1]
    return f"The paper spells out {listed}."


def without_spelled_sentence(text: str) -> str:
    """`text` less the sentence `spelled_sentence` wrote."""
    return _SENTENCE.sub("", text)


def definitions(text: str, names: Iterable[str], skip: Iterable[str] = ()) -> dict[str, str]:
    """The acronyms of `names` that `text` spells out, with what they stand for, in the order
    the names give them; none of `skip` (the paper's own method, field-wide acronyms), at
    most `MAX_SPELLED`."""
    flat = re.sub(r"\s+", " ", text)
    left = set(skip)
    out: dict[str, str] = {}
    for name in names:
        for a in acronyms(name):
            if a in out or a in left or len(out) >= MAX_SPELLED:
                continue
            if long := spelled_out(flat, a):
                out[a] = long
    return out


def key_word(long: str, others: Iterable[str] = ()) -> str:
    """The word of a spelled-out name code would name its part by: the last ("attention" of
    "multi-scale convolutional attention"), unless another name ends alike ("instance-level
    contrastive head" beside "cluster-level contrastive head": "instance"); a word of four
    letters or more that no other of `others` has, "" when none."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", long)]
    shared = {w.lower() for o in others for w in re.findall(r"[A-Za-z]+", o)}
    tail = words[-1:] if words else []
    for w in [*tail, *words]:
        if len(w) >= 4 and w not in shared and w not in _MINOR:
            return w
    return ""
