"""The names a text cites as other works': "PASCL (Wang et al. 2022)", "DF2-Seg [46]".

Drafting reads them in the paper and writes them into a task's method; setup recovery reads
them in the task, so a compared method the paper cites, and the repository does not
implement, is taken from its own work rather than left as a command to write.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_YEAR = r"(?:19|20)\d{2}[a-z]?"

# a citation right after a name: a number in brackets ("[12]", "[22,23]", "[3–5]"), authors
# and a year in brackets or parentheses ("[Li et al., 2017]", "(Hendrycks, Mazeika, and
# Dietterich 2019)", "(Wang et al. 2022; Du et al. 2023)"), or a year alone ("(2019)")
_AFTER = re.compile(
    r"[ \t]?(?:"
    r"\[\s*\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\s*\]"
    rf"|\[[A-Z][^\[\]\n]{{0,80}}?\b{_YEAR}\]"
    rf"|\([A-Z][^()\n]{{0,100}}?\b{_YEAR}(?:[,;][^()\n]{{0,60}})?\)"
    rf"|\({_YEAR}\)"
    r")"
)


def cited_part(name: str) -> str:
    """The part of a row's name a paper cites: the method of "DenseASPP / ResNet50", less
    the marks a table adds ("DeepLabV3+∗", "NAS-FPN$")."""
    head = name.split(" / ", 1)[0].strip()
    return re.sub(r"[∗*†‡$§¶]+$", "", head).strip()


def citation_after(text: str, name: str) -> str:
    """The first citation written right after `name` (as a whole word) in `text`, or ""."""
    return _cited_in(re.sub(r"\s+", " ", text), name)


def _cited_in(flat: str, name: str) -> str:
    """`citation_after` in a text whose spaces are one each."""
    name = name.strip()
    if len(name) < 2:
        return ""
    for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", flat):
        cited = _AFTER.match(flat, m.end())
        if cited:
            return cited.group(0).strip()
    return ""


def cited_works(text: str, names: Iterable[str]) -> dict[str, str]:
    """Each of `names` that `text` cites (by its `cited_part`), with its first citation, in
    the order given."""
    flat = re.sub(r"\s+", " ", text)  # a paper's whole text: flattened once for every name
    out: dict[str, str] = {}
    for name in map(cited_part, names):
        if name and name not in out and (cited := _cited_in(flat, name)):
            out[name] = cited
    return out


_SENTENCE = re.compile(r"\s*The paper cites \S.*? as prior work\.")


def without_cited_sentence(text: str) -> str:
    """`text` less the sentence `cited_sentence` wrote: its words ("cites", "work") are no
    words of the experiment to search the code for."""
    return _SENTENCE.sub("", text)


def cited_sentence(works: dict[str, str]) -> str:
    """What a task's method says of the compared names its paper cites ("" for none)."""
    if not works:
        return ""
    named = [f"{name} {cite}" for name, cite in works.items()]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"The paper cites {listed} as prior work."
