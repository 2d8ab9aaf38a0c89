"""Claim sentences: what the paper itself says each table and figure shows.

Drafting a task around the authors' own finding ("ours beats every baseline as the model
grows") keeps the expected outcome grounded in the paper. This module finds those sentences,
tells them apart from mere pointers ("Results are in Table 3."), names the tables and figures
they cite, and ranks the labels the headline results rest on. Pure regular expressions: the
same paper always gives the same claims in the same order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from expcurate.records import Figure, ParsedPaper, Section, Table
from expcurate.records.names import squash


def _rx(*alts: str) -> re.Pattern[str]:
    return re.compile("|".join(alts), re.I)


def _cue(*alts: str) -> re.Pattern[str]:
    """A cue pattern: group 1 is the matched cue words."""
    return re.compile(r"(?<!\w)(" + "|".join(alts) + ")", re.I)


# ------------------------------------------------------------------ sentences

# Abbreviations whose period ends no sentence; their dots are masked while splitting.
ABBREV = _rx(
    r"\b(e\.g|i\.e|et al|w\.r\.t|v\.s|cf|vs|resp|approx|Figs?|Tabs?|Eqs?|Secs?|Sect|Apps?|"
    r"Appx|Algs?|Thm|Prop|Lem|Def|Refs?|Nos?|Ch|Dr|Mr|Ms)\."
)
MASK = "\u2024"  # one-dot leader: stands in for a masked period
SPLIT = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[A-Z(\[\"“0-9])")


def _repair(text: str) -> str:
    """Undo line-break hyphenation: "outper-\\nforms" joins; "BAPOS- GMCP" keeps its hyphen;
    a suspended hyphen ("instance- and cluster-level") is left alone."""
    text = re.sub(r"([a-z])-[ \t]*\n\s*([a-z])", r"\1\2", text)
    return re.sub(r"(\w)-\s+(?!(?:and|or|nor|to|as|vs)\b)(?=\w)", r"\1-", text)


def _paragraphs(text: str, title: str) -> list[str]:
    """Paragraphs of a section without running heads (the paper's title) or figure text that
    leaked in (short lines ending no sentence, sub-figure captions); a paragraph cut by a
    page break is rejoined."""
    head = re.sub(r"\W", "", title.lower())[:40]
    lines = [ln.strip() for ln in _repair(text).split("\n") if ln.strip()]
    out: list[str] = []
    for i, ln in enumerate(lines):
        nxt, words = lines[i + 1] if i + 1 < len(lines) else "A", len(ln.split())
        if (head and re.sub(r"\W", "", ln.lower())[:40] == head) or words <= 4:
            continue
        if words <= 8 and (
            re.match(r"\(\w\) ", ln) or (ln[-1] not in ".!?:;," and nxt[0].isupper())
        ):
            continue
        if out and out[-1][-1] not in ".!?:":
            out[-1] += " " + ln
        else:
            out.append(ln)
    return out


def _split(paragraph: str) -> list[str]:
    masked = ABBREV.sub(lambda m: m.group(0)[:-1] + MASK, re.sub(r"\s+", " ", paragraph))
    items = re.split(r"\s*[•●▪]\s+", masked)  # a bulleted list: one sentence per bullet
    parts = (p.replace(MASK, ".").strip() for item in items for p in SPLIT.split(item))
    return [p for p in parts if len(p) > 20]


def split_sentences(text: str, title: str = "") -> list[str]:
    """Sentences of flowing text, whitespace-normalised. Decimals ("3.5"), section references
    ("Sec. 4.2") and abbreviations ("e.g.", "et al.", "Fig.", "vs.") do not end a sentence."""
    return [s for p in _paragraphs(text, title) for s in _split(p)]


# ------------------------------------------------------------------ labels

NUM = r"[A-Z]?\.?\d+(?:\.\d+)?"
PANEL = r"(?:[a-z](?![a-z])|\s?\(\s?[a-z](?:\s*[-–,]\s*[a-z])*\s?\))?"
SEP = r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*|[-–]\s*|to\s+)"
LABEL = _rx(rf"\b(Tables?|Tabs?\.?|Figures?|Figs?\.?)\s?({NUM}{PANEL}(?:{SEP}{NUM}{PANEL})*)")


def cited_labels(sentence: str) -> list[str]:
    """Tables and figures a sentence cites, as "Table 3" / "Figure 2", in order of mention:
    "Figs. 2 and 3" gives two, "Tables 2-4" three, "Figure 4(a)" is "Figure 4"."""
    out: list[str] = []
    for m in LABEL.finditer(sentence):
        kind = "Table" if m.group(1).lower().startswith("t") else "Figure"
        toks = re.findall(rf"{NUM}|[-–]", re.sub(r"\([^)]*\)", "", m.group(2)))
        nums: list[str] = []
        for i, tok in enumerate(toks):
            prev, nxt = nums[-1] if nums else "", toks[i + 1] if i + 1 < len(toks) else ""
            if tok in "-–" and prev.isdigit() and nxt.isdigit() and 0 < int(nxt) - int(prev) <= 30:
                nums += [str(n) for n in range(int(prev) + 1, int(nxt))]
            elif tok not in "-–":
                nums.append(tok)
        out += [f"{kind} {n}" for n in nums if f"{kind} {n}" not in out]
    return out


# A table cited only as the yardstick of a comparison ("compared with the results in Table 3,
# the gain is larger here"): the finding is about another table, the one in context.
YARDSTICK = _rx(
    r"\b(?:compared (?:with|to)|in contrast to|unlike) (?:the |those )?(?:results?|numbers|"
    r"scores|values)? ?(?:in|of|from)? ?(?=(?:Tables?|Tabs?\.?|Figures?|Figs?\.?)\s?\d)"
)


def own_labels(sentence: str) -> list[str]:
    """The labels a sentence's finding is about: those it cites, less one it only compares
    against (then, citing nothing else, it borrows its context's like an uncited sentence)."""
    labels = cited_labels(sentence)
    yardsticks = {
        lab
        for m in YARDSTICK.finditer(sentence)
        for lab in cited_labels(sentence[m.end() : m.end() + 20])[:1]
    }
    return [lab for lab in labels if lab not in yardsticks]


def _key(label: str) -> str:
    return squash(label)


# ------------------------------------------------------------------ cues

BETTER = r"better|higher|lower|faster|slower|fewer|smaller|larger|greater|stronger|worse|less"
COMPARATIVE = _cue(
    r"outperform\w*|surpass\w*|beat(?:s|ing)?\b|exceed\w*|superior|inferior|[+↑↓]\d[\d.]*%?",
    r"(?:top|best)-performing|perform\w* (?:the )?best|(?:is|are) (?:the )?best|as good as",
    r"(?:is|are) the (?:weakest|strongest|worst|fastest|slowest|cheapest|most accurate)\b",
    r"(?:falls?|fell|lags?|lagged) behind|(?:rises?|rose|drops?|dropped|falls?|fell|increase[sd]?|"
    r"decrease[sd]?|grows?|grew|improve[sd]?|degrade[sd]?) (?:\w+ ){0,2}?(?:by|from) [\d.]+",
    r"comparable (?:\w+ )?(?:to|with)|on par with|competitive with|beyond (?:what|that of)",
    r"(?:perform\w*|work\w*|does) as well as|match(?:es|ing)? (?:the )?(?:performance|best)",
    r"(?:great|strong|excellent|remarkable|impressive|competitive|promising) (?:performance|results)",
    r"improv\w* (?:\w+ ){0,4}?(?:over|upon|by|from)\b|improvements? (?:of|over|by|than)",
    rf"(?:{BETTER}|weaker|cheaper|more \w+|less \w+) (?:\w+ ){{0,3}}?than|reduc\w* (?:[\w-]+ ){{0,5}}?by\b",
    r"(?:gains?|boosts?) (?:of|over|in|on)\b|(?:improv|enhanc|boost)\w* (?:the |their |its )?"
    r"(?:\w+ ){0,2}?(?:performance|accuracy|results?|quality|robustness|generali[sz]ation)",
    r"(?:new|achiev\w*|sets?|establish\w*|reach\w*|attain\w*|yield\w*)(?: \w+){0,3} "
    r"(?:state-of-the-art|sota)\b|state-of-the-art (?:performance|results?|accuracy)",
    r"(?:achiev|obtain|attain|show)\w* the (?:best|highest|lowest)|speed-?ups?",
    r"(?:significantly|substantially|considerably|greatly|markedly|dramatically|clearly|much|"
    r"marginally|slightly|far) "
    rf"(?:improv|outperform|boost|enhanc|reduc|increas|decreas|benefit|surpass|lag|deepen|drop|"
    rf"degrad|{BETTER})\w*",
    r"\d+(?:\.\d+)?\s?(?:%|points?|pp|×|x) (?:higher|lower|better|worse|fewer|more|less|"
    r"faster|smaller|improvement|gain|reduction|above|below)|(?:above|below) the baseline",
    r"(?:leads?|led) to (?:\w+ ){0,2}(?:improvements?|gains?|drops?|degradation|declines?|"
    r"decreases?|increases?)",
)
TREND = _cue(
    r"as (?:the )?(?:[\w-]+ ){0,5}?(?:increases?|decreases?|grows?|rises?|drops?|gets|becomes|"
    r"shrinks?|goes (?:up|down)|are added|is (?:increased|decreased|reduced|enlarged))",
    r"(?:grow|increase|decrease|drop|decline|improve|degrade|rise|fall|shrink|diminish)"
    r"(?:s|d|es)? (?:\w+ )?(?:with|as|along with|in proportion)\b",
    r"scal(?:es|ing|ed) (?:well |linearly |favou?rably |up )?(?:with|to|as)\b|saturat\w+|"
    r"plateaus?|monoton\w+|diminishing returns|with (?:increasing|decreasing|growing)|"
    r"(?:flatten|level)(?:s|ed)? off|(?:flatten|level)(?:s|ed)? out",
    r"the (?:more|larger|higher|lower|smaller|longer|fewer|greater|deeper|wider|bigger|less) "
    r"[^,.;]{1,60}, the (?:more|better|worse|higher|lower|larger|smaller|less|greater|faster)",
    r"(?:stays?|remains?) (?:high|low|stable|flat|constant|steady|positive)",
    r"(?:improv|increas|decreas|degrad|declin|drop)\w* (?:\w+ )?over (?:time|iterations|"
    r"training|steps|epochs)",
)
CONSISTENCY = _cue(
    r"consistently|consistent (?:improvements?|gains?|performance)|across (?:all|every|the "
    r"board)|(?:in|on|for) (?:all|every)\b(?: \w+){0,2}|uniformly|without exception",
    r"regardless of|robust(?:ly)? (?:to|across)|in (?:most|nearly all|almost all) "
    r"(?:cases|settings|datasets|tasks|benchmarks)",
)
ABLATION = _cue(
    r"(?:removing|without|w/o|mask\w* out|dropping|discarding|excluding|ablating|disabling|"
    r"replacing|removal of|absence of|eliminating)\b[^.;]{0,80}?\b(?:degrad|drop|decreas|hurt|"
    r"reduc|lower|worse|declin|fall|fell|harm|loses?\b|deteriorat|collaps|impair|rais|rise|"
    r"increas|costs?\b)\w*",
    r"each (?:\w+ )?(?:component|module|part|term|loss|design)s? (?:\w+ )?contribut\w*",
    r"(?:components?|modules?|designs?|terms?) (?:is|are) (?:all )?(?:essential|crucial|"
    r"important|necessary|indispensable|critical|beneficial|complementary)",
    r"(?:is|are) (?:crucial|essential|indispensable|critical|key) (?:for|to)\b|"
    r"contribut\w* (?:the )?most|needs both",
)
WEIGHT = {"comparative": 1.0, "trend": 1.0, "ablation": 0.8, "consistency": 0.4}
KINDS = dict(zip(WEIGHT, (COMPARATIVE, TREND, ABLATION, CONSISTENCY), strict=True))
RESULT_WORD = _rx(
    r"outperform|better|improv|gain|higher|lower|best|superior|accura|perform|score|error|robust|stable|effective|advantage|benefit"
)
SHOWN = (
    r"shown|reported|listed|presented|summari[sz]ed|given|provided|illustrated|depicted|displayed"
)
POINTER = _rx(
    rf"^(?:\w+\s+){{0,6}}?(?:are|is)\s+(?:{SHOWN}|visuali[sz]ed|included|available|found|detailed|placed)\s+in\b",
    r"^(?:we\s+)?(?:also\s+)?(?:report|present|show|list|summari[sz]e|provide|include|give|"
    r"illustrate|depict|display|visuali[sz]e|compare|tabulate|plot)\w*\b|^(?:please\s+)?(?:see|refer)\b",
    r"^(?:as (?:shown|illustrated|reported|listed) in |in )?(?:Tables?|Figures?|Figs?\.|Tabs?\.)"
    r"\s*\S+\s+(?:also\s+)?(?:shows|lists|reports|presents|summari[sz]es|provides|gives|"
    r"illustrates|depicts|displays|contains|compares|isolates|includes|visuali[sz]es|plots)\b",
)
FINDING_CLAUSE = _rx(
    r"\b(?:that|how|whether)\b|[,;:] (?:where|which|and|while|showing|indicating|demonstrating|suggesting|confirming|revealing)\b"
)
HEDGE = _rx(
    r"\b(?:may|might|could|possibly|perhaps|presumably|potentially|seems?|appears? to|in the "
    r"future|future work|we (?:hypothesi[sz]e|believe|conjecture|speculate|suspect|expect|"
    r"anticipate|hope|plan))\b"
)
SOFT_HEDGE = _rx(r"\b(?:suggest\w*|likely|probably|generally|roughly)\b")
PRIOR = _rx(
    r"\b(?:previous|prior|existing|earlier|conventional) (?:[\w-]+ ){0,2}(?:works?|studies|"
    r"research|methods?|methodologies|approaches)\b"
)
DESCRIPTIVE = _rx(
    r"\b(?:we (?:use|adopt|follow|set|train|implement|propose|introduce|design|describe|define|"
    r"aim|consider)|is defined|consists? of|is designed|in order to|our goal)\b"
)
MEASURE = _rx(r"\d+(?:\.\d+)?\s?(?:%|×|x\b|points?\b|pp\b)|\b\d+\.\d+\b|[+↑↓]\d")
METRIC = _rx(
    r"\b(?:accuracy|f1|bleu|rouge|cider|meteor|miou|map|auroc|aupr|fpr\d*|auc|mse|mae|rmse|"
    r"error|loss|perplexity|throughput|latency|speed|memory|flops|runtime|score|precision|"
    r"recall|success|win rate|pass rate|returns?|reward|retention|mrr|performance)\b"
)
ANAPHORA = _rx(
    r"\b(?:from|in|according to) (?:the|these|this|those) (?:results?|tables?|figures?|plots?|"
    r"comparisons?)|as (?:shown|seen|can be seen)|we (?:can )?(?:see|observe|find|notice)\b|"
    r"it (?:can be|is) (?:seen|observed)"
)
OURS = _rx(r"\b(?:we|our|ours|proposed|the full (?:model|method))\b")
SUBJECT = _rx(OURS.pattern, r"experiment|(?:the|these|our) results|empirical")
SKIP_TITLE = _rx(
    r"related work|prior work|background|literature|acknowledg|ethic|broader impact|checklist|reference|limitation|social impact|keywords"
)
INTRO, CONCLUSION = _rx("introduction"), _rx("conclu|summary|discussion")
RESULTS = _rx(r"experiment|result|evaluat|compar|benchmark|performance|analys")
MAIN = _rx(
    r"\bmain\b|overall|comparison|compar\w* (?:with|to|against)|state[- ]of[- ]the[- ]art|\bsota\b",
    r"^(?:\w+ )?(?:performance|results?|experiments?)(?: and \w+)?$",
)
NOT_MAIN = _rx(
    r"ablat|analys|qualitativ|case stud|efficien|error|hyper|sensitiv|additional|more |setting|setup|detail|dataset|implementation|variation|importance"
)
SETUP_CAPTION = _rx(
    r"\b(?:hyper-?parameters?|notations?|(?:dataset|benchmark|task)s? (?:description|detail|"
    r"summar|statistic)\w*|summary of (?:the )?(?:datasets?|benchmarks?|experiment)|prompts?|"
    r"examples? (?:of|from|in)|overview|architecture of|illustrat\w*|pipeline|framework|schema|"
    r"case study|related works?|data distribution|configuration|training details)\b",
    r"^(?:the )?(?:tasks?|datasets?|data|benchmarks?|statistics|examples?)\b",
)


class Claim(BaseModel):
    """One sentence of the paper stating a checkable finding, with what it cites."""

    text: str
    labels: list[str] = Field(default_factory=list)
    section: str = "Abstract"
    kinds: list[str] = Field(default_factory=list)
    cue: str = ""
    score: float = 0.0
    headline: bool = False
    # True when `labels` come from a neighbouring sentence ("Table 2 lists the variants. The
    # full model beats every one."), not from the claim itself.
    inferred_labels: bool = False
    # The setting an earlier sentence of its paragraph put it in ("On ImageNet-LT, …"), when
    # the claim names none itself.
    context: str = ""


@dataclass
class _Sent:
    """A sentence with where it sits; `claim` is None for non-claims."""

    labels: list[str]
    where: str  # abstract, intro, main, results, conclusion, other
    appendix: bool
    claim: Claim | None
    inferred: bool


# A sentence that sets its finding on a dataset first: "On ImageNet-LT, …", "For CIFAR-10, …".
SCENE = re.compile(r"^(?:\w+,\s*)?((?:On|For|In) (?:the )?[A-Z][\w.-]*(?:[ -][A-Z0-9][\w.-]*)*),")


def _judge(text: str, labels: list[str], inferred: bool, where: str) -> Claim | None:
    """The claim a sentence makes, or None: a pointer, a formula, no finding cue, too weak.
    Unlabelled sentences count only in the abstract, or in the introduction and conclusion
    when they speak of this paper's work ("we", "our", "experiments")."""
    headline = where in ("abstract", "intro", "conclusion")
    bare = re.sub(r"\[[\d,\s–-]+\]|\(\w[^()]*\d{4}\w?\)", " ", LABEL.sub(" ", text))
    if POINTER.search(text) and not FINDING_CLAUSE.search(bare):
        return None
    if len(re.findall(r"[∀∈∉≃≅≤≥∑∏⇒∧∨⊆]", text)) > 1 or text.count("=") > 4:  # a formula
        return None
    found = {name: m for name, rx in KINDS.items() if (m := rx.search(bare))}
    kinds, score = list(found), sum(WEIGHT[name] for name in found)
    if not kinds or (kinds == ["consistency"] and not RESULT_WORD.search(bare)):
        return None
    if not labels and not (where == "abstract" or (headline and SUBJECT.search(bare))):
        return None
    score += 0.5 * bool(MEASURE.search(bare)) + 0.3 * bool(METRIC.search(bare))
    score += 0.3 * bool(OURS.search(bare)) + (0.2 if inferred else 0.4) * bool(labels)
    score -= 0.6 * bool(HEDGE.search(bare)) + 0.2 * bool(SOFT_HEDGE.search(bare))
    score -= 0.6 * bool(DESCRIPTIVE.search(bare)) + 0.3 * (len(text.split()) > 80)
    # Other papers' methods as the subject of the finding, not this paper's.
    first = min([m.start() for m in found.values()] + [m.start() for m in OURS.finditer(bare)])
    score -= 0.6 * bool((prior := PRIOR.search(bare)) and prior.start() < first)
    if score < 1.0:
        return None
    return Claim(
        text=text,
        labels=labels,
        kinds=kinds,
        cue="; ".join(m.group(1).strip() for m in found.values()),
        score=round(score, 2),
        inferred_labels=inferred and bool(labels),
    )


def _where(section: Section, parent: str) -> str:
    """Role of a section, read off its own title and its parents' (subsections of an
    "Experiments" section are results even when titled "Performance"). A bare "Results" or
    "Performance" title is main; "Encoder Performance on ImageNet" is a side result."""
    title = re.sub(r"\s+", " ", section.title).strip()
    if INTRO.search(title):
        return "intro"
    if CONCLUSION.search(title) and not RESULTS.search(title):
        return "conclusion"
    if MAIN.search(title) and not NOT_MAIN.search(title):
        return "main"
    return "results" if RESULTS.search(f"{title} {parent}") else "other"


def _setup(items: list[Table | Figure]) -> set[str]:
    """Labels whose caption opens on setup material (dataset statistics, an overview, a
    prompt): no finding rests on them. Only the caption's first ten words count: a results
    table may mention a prompt further on."""
    heads = [
        (x.label, re.sub(r"^\W*(?:table|figure)\s*[\w.]+\W*", "", x.caption, flags=re.I))
        for x in items
    ]
    return {
        lab for lab, h in heads if SETUP_CAPTION.search(" ".join(h.split(". ")[0].split()[:10]))
    }


def _scan(paper: ParsedPaper) -> list[_Sent]:
    """Every sentence of the abstract and body, judged, labels resolved to the paper's own.

    A sentence citing nothing borrows the labels of the closest citing sentence: an earlier one
    in its paragraph, else a pointer right after it ("A beats B. Results are in Table 4."),
    else the last citation before, if at most two sentences back (six when the sentence
    points back itself: "From these results, ..."); a subsection starts from the last
    citation of its parent section. Setup items and lists of four or more are never borrowed.
    Related work and its subsections are skipped: their comparisons are other papers'."""
    items: list[Table | Figure] = [*paper.tables, *paper.figures]
    known, setup = {_key(x.label): x.label for x in items}, _setup(items)
    blocks = [("Abstract", paper.abstract, "abstract", False, 0)]
    parents: dict[int, str] = {}
    for s in paper.sections:
        parents = {lv: t for lv, t in parents.items() if lv < s.level} | {s.level: s.title}
        if not any(SKIP_TITLE.search(t) for t in parents.values()):
            parent = " ".join(parents.get(lv, "") for lv in range(1, s.level))
            heading = re.sub(r"\s+", " ", s.heading).strip()
            blocks.append((heading, s.text, _where(s, parent), s.appendix, s.level))
    out: list[_Sent] = []
    by_level: dict[int, list[str]] = {}  # last labels cited in the open section of each level
    for heading, text, where, appendix, level in blocks:
        by_level = {lv: labs for lv, labs in by_level.items() if lv < level}
        carry, since = (by_level[max(by_level)] if by_level and level else []), 0
        for para in _paragraphs(text, paper.title):
            sents = _split(para)
            scene = ""  # "On ImageNet-LT": the setting the paragraph has put its findings in
            cites = [[known.get(_key(lab), lab) for lab in own_labels(t)] for t in sents]
            lend = [[lab for lab in c if lab not in setup] if len(c) <= 3 else [] for c in cites]
            for i, (sent, labels) in enumerate(zip(sents, cites, strict=True)):
                back: list[str] = next((c for c in reversed(lend[:i]) if c), [])
                ahead = lend[i + 1] if i + 1 < len(sents) and POINTER.search(sents[i + 1]) else []
                since = 0 if labels else since + 1
                far = since <= (6 if ANAPHORA.search(sent) else 2)
                use = labels or back or ahead or (carry if far else [])
                inferred = not labels and bool(use)
                claim = _judge(sent, use, inferred, where)
                own_scene = SCENE.match(sent)
                if claim is not None and not own_scene and not labels:
                    claim.context = scene
                scene = own_scene.group(1) if own_scene else scene
                if claim is not None:
                    claim.section = heading
                    since = 0 if inferred else since  # a run of claims keeps its label
                out.append(_Sent(use, where, appendix, claim, inferred))
                if lend[i]:
                    carry = by_level[level] = lend[i]
    return out


def _rank(paper: ParsedPaper, sents: list[_Sent]) -> list[str]:
    """Headline labels, best first: tables a claim in a main-results section cites, in the
    order that section cites them; then other labels that section cites; then labels claims
    cite in the abstract, introduction and results sections, earliest first; then labels only
    pointed at, most cited first. Setup material (dataset statistics, overviews, prompts)
    and items printed in the appendix are never headline."""
    items: list[Table | Figure] = [*paper.tables, *paper.figures]
    appendix = {re.sub(r"\s+", " ", s.heading).strip() for s in paper.sections if s.appendix}
    demoted = _setup(items) | {x.label for x in items if x.section.strip() in appendix}
    known, tables = {x.label for x in items} - demoted, {x.label for x in paper.tables}
    first_main: dict[str, int] = {}
    first_claim: dict[str, int] = {}
    cited: dict[str, float] = {}
    lead: set[str] = set()
    for pos, s in enumerate(sents):
        if s.appendix or s.where not in ("abstract", "intro", "main", "results"):
            continue
        for lab in s.labels:
            if lab not in known or (s.inferred and (s.claim is None or s.where == "intro")):
                continue
            cited[lab] = cited.get(lab, 0.0) + (1.0 if s.claim else 0.3)
            if s.where == "main":
                first_main.setdefault(lab, pos)
                if s.claim is not None and lab in tables:
                    lead.add(lab)
            if s.claim is not None:
                first_claim.setdefault(lab, pos)

    def key(lab: str) -> tuple[int, float]:
        if lab in first_main:
            return (0 if lab in lead else 1, first_main[lab])
        return (2, first_claim[lab]) if lab in first_claim else (3, -cited[lab])

    ranked = sorted(cited, key=key)
    strong = [lab for lab in ranked if key(lab)[0] < 3]
    return (strong if len(strong) >= 2 else ranked)[:6]


def headline_labels(paper: ParsedPaper) -> list[str]:
    """The tables and figures the paper's headline results rest on, best first; only labels
    the paper has a table or figure for."""
    return _rank(paper, _scan(paper))


def find_claims(paper: ParsedPaper) -> list[Claim]:
    """The paper's claim sentences in reading order (abstract first). A claim is headline when
    it sits in the abstract or introduction or cites a headline label."""
    sents = _scan(paper)
    top = set(_rank(paper, sents))
    out = []
    for s in sents:
        if s.claim is not None:
            s.claim.headline = s.where in ("abstract", "intro") or bool(top & set(s.claim.labels))
            out.append(s.claim)
    return out


def claims_for(label: str, claims: list[Claim]) -> list[Claim]:
    """Claims citing `label` ("Tab. 3" finds "Table 3"), strongest first; claims citing it
    themselves before those that borrowed it, then reading order."""
    want = {_key(lab) for lab in cited_labels(label)} or {_key(label)}
    hits = [c for c in claims if want.intersection(_key(lab) for lab in c.labels)]
    return sorted(hits, key=lambda c: (c.inferred_labels, -c.score))
