"""What the paper says about its experiments, shared by every drafted task.

The paper's own method name, its setup sentences and the settings they fix, the findings it
states about each table and figure (`Context`), and how a task's method text and question
name a table or figure (`method_text`, `topic_of`). The table drafter (`heuristic`) and the
figure drafter (`figures`) both build on it.
"""

from __future__ import annotations

import re
from collections import Counter

from expcurate.records import (
    Figure,
    ParsedPaper,
    Table,
)
from expcurate.records.names import squash
from extractors.numbers import find_numbers
from extractors.tasks.claims import (
    Claim,
    cited_labels,
    claims_for,
    find_claims,
    headline_labels,
)
from extractors.tasks.grids import (
    CITATION,
    EFFICIENCY_CAPTION,
)

SETUP_TITLE = re.compile(
    r"setup|setting|implementation|dataset|benchmark|baseline|training|hyper|protocol", re.I
)


HYPER_SENTENCE = re.compile(
    r"learning rate|batch size|epoch|optimizer|adam|sgd|dropout|weight decay|warm-?up|"
    r"hidden (size|dim)|layers?|heads?|seed|steps|lr\b|temperature|beam",
    re.I,
)


PROCEDURE = re.compile(
    r"\b(we (train|evaluate|use|adopt|follow|run|conduct|test|fine-?tune|pre-?train|measure|"
    r"report|compare|implement|set|apply|consider|sample)|(is|are|was|were) (trained|evaluated|"
    r"run|tested|measured|fine-?tuned|averaged|computed|implemented|conducted)|following)\b",
    re.I,
)


# Sentences that describe other work or write formulas, not how this experiment was run.
NOT_SETUP = re.compile(r"\[\d[\d,\s–-]*\]|\bet al\b|[∈∑∏≤≥⊆→]|\bprior work|\bprevious work", re.I)


SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


TAKEAWAY = re.compile(
    r"\b(we (show|demonstrate|find|observe|propose|introduce)|outperform\w*|state-of-the-art|"
    r"achiev\w*|improv\w*|consistently|reduc\w*|lower|higher|better|fewer|faster|surpass\w*)\b",
    re.I,
)


def sentences(text: str) -> list[str]:
    flat = re.sub(r"\s+", " ", text).strip()
    return [s.strip() for s in SENTENCE_SPLIT.split(flat) if len(s.strip()) > 20]


def clean_title(text: str) -> str:
    """Section titles as printed, without hyphenation or spacing artifacts."""
    text = re.sub(r"(\w)-\s+(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip(" .:")


NAMED = re.compile(
    r"\b(?:called|named|dubbed|termed|coined)\s+((?:[A-Z][\w-]*\s*){1,4})(?:\(([A-Z][\w-]{1,15})\))?"
)


PROPOSE = re.compile(
    r"\b(?:we|this paper|this work)\s+(?:\w+\s+)?(?:propose|present|introduce)", re.I
)


ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9-]{1,15})\)")


# Field-wide acronyms that name no one paper's method.
GENERIC = frozenset(
    {
        "AI",
        "ML",
        "NLP",
        "LLM",
        "LM",
        "RL",
        "GPU",
        "CPU",
        "API",
        "SOTA",
        "CV",
        "DL",
        "NN",
        "QA",
        "GNN",
        "CNN",
        "RNN",
        "MLP",
        "OOD",
        "VQA",
        "ASR",
        "MT",
        "IR",
        "KG",
    }
)


CAMEL = re.compile(r"\b([A-Z][a-z0-9]*[A-Z][\w-]*|[A-Z]{2,}[\w-]*)\b")


def proposed_method(paper: ParsedPaper) -> str:
    """The paper's own method name, from the title or the abstract's "we propose" sentence.

    In order: a short "Name: subtitle" title; a name the abstract introduces ("called
    Contrastive Clustering (CC)" gives the acronym, which tables use); an acronym or a
    CamelCase word in the sentence that proposes something.
    """
    head = paper.title.split(":", 1)[0].strip()
    if ":" in paper.title and 1 <= len(head.split()) <= 3:
        return _as_written(head, paper)
    for sentence in sentences(paper.abstract):
        if not PROPOSE.search(sentence):
            continue
        named = NAMED.search(sentence)
        if named and (named.group(2) or named.group(1).strip()) not in GENERIC:
            return named.group(2) or named.group(1).strip()
        start = PROPOSE.search(sentence)
        rest = sentence[start.start() :] if start else sentence
        for pattern in (ACRONYM, CAMEL):
            for m in pattern.finditer(rest):
                if m.group(1) not in GENERIC and m.group(1).rstrip("s") not in GENERIC:
                    return m.group(1)
    return ""


def _as_written(name: str, paper: ParsedPaper) -> str:
    """A name a title sets in capitals ("TIMESNET") as the paper's text spells it
    ("TimesNet"), when the text spells it otherwise more often."""
    if not name.isupper() or len(name) < 5:
        return name
    text = " ".join(s.text for s in paper.sections[:12])
    spellings = Counter(re.findall(rf"\b{re.escape(name)}\b", text, re.I))
    best, count = max(spellings.items(), key=lambda kv: kv[1], default=(name, 0))
    return best if count > spellings.get(name, 0) else name


OURS_LABEL = re.compile(
    r"^\W*ours\b|\((?:ours|this work)\)|\bour (?:method|model|approach)\b", re.I
)


def called(label: str, method: str) -> str:
    """A row the table calls "Ours", by the paper's name for it: "EAT (Ours)"."""
    if method and re.match(r"^\W*ours\W*$", label, re.I):
        return f"{method} ({label.strip()})"
    return label


def names_method(label: str, name: str) -> bool:
    """Does a row or column label stand for the paper's method: its name, or "Ours"?"""
    if OURS_LABEL.search(label):
        return True
    if not name:
        return False
    target = squash(name)
    if not target:
        return False
    if squash(label) == target:
        return True
    # The name's words lead the label's ("GateMix-L", "TimesNet (ours)"), or the name is one
    # of its words; a longer word that only starts like it ("CCH" for "CC") is another name.
    words = [w for w in re.split(r"[^a-z0-9]+", label.lower()) if w]
    own = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
    return words[: len(own)] == own or target in words


class Context:
    """What the paper says about its setup, reused in every task's method."""

    def __init__(self, paper: ParsedPaper) -> None:
        self.paper = paper
        self.method = proposed_method(paper)
        setup = [s for s in paper.sections if SETUP_TITLE.search(s.title) and not s.appendix]
        self.setup_sentences = [
            sent for s in setup for sent in sentences(s.text) if HYPER_SENTENCE.search(sent)
        ][:6]
        self.constants = _hyperparameters(" ".join(self.setup_sentences))
        self.claims = find_claims(paper)
        self.headline = headline_labels(paper)
        self.used: set[str] = set()  # findings that already lead a task

    def claims_about(self, label: str) -> list[Claim]:
        """The paper's findings about `label`, strongest first (own citations before borrowed)."""
        return claims_for(label, self.claims)

    def setup_for(self, label: str) -> list[str]:
        """How the experiment behind `label` was run, in the words next to where the paper
        cites it: the citing sentence and its neighbours when they state settings or
        procedure, never a finding. A section often reports several experiments, so the rest
        of it is not this one's. Falls back to the paper's setup sections (settings shared by
        every experiment) when the citation says nothing of the kind."""
        findings = {c.text for c in self.claims}
        pattern = re.compile(rf"\b({re.escape(label)}|{re.escape(short_label(label))})\b")
        local = []
        for s in self.paper.sections:
            if not pattern.search(s.text):
                continue
            sents = sentences(s.text)
            near = {
                j
                for i, sent in enumerate(sents)
                if pattern.search(sent)
                for j in (i - 1, i, i + 1)
                if 0 <= j < len(sents)
            }
            for j in sorted(near):
                sent = sents[j]
                if sent in findings or (find_numbers(sent) and TAKEAWAY.search(sent)):
                    continue
                if NOT_SETUP.search(sent) or len(sent.split()) > 60:
                    continue
                other = {lab for lab in cited_labels(sent) if lab != label}
                if other and not pattern.search(sent):
                    continue  # a neighbour about another table
                if HYPER_SENTENCE.search(sent) or PROCEDURE.search(sent):
                    local.append(sent)
        local = list(dict.fromkeys(local))[:3]
        return local or self.setup_sentences[:3]

    def section_citing(self, label: str, fallback: str) -> str:
        pattern = re.compile(rf"\b{re.escape(label)}\b|\b{re.escape(short_label(label))}\b")
        for s in self.paper.sections:
            if not s.appendix and pattern.search(s.text):
                return clean_title(s.heading)
        return clean_title(fallback)

    def sentences_citing(self, label: str) -> list[str]:
        pattern = re.compile(rf"\b({re.escape(label)}|{re.escape(short_label(label))})\b")
        return [t for s in self.paper.sections for t in sentences(s.text) if pattern.search(t)]


def short_label(label: str) -> str:
    kind, _, num = label.partition(" ")
    return {"Figure": "Fig.", "Table": "Tab."}.get(kind, kind) + " " + num


def _hyperparameters(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, pat in [
        (
            "learning_rate",
            r"learning rate (?:is |was )?(?:set (?:to |as )|of |to |=\s*)?(\d[\d.]*(?:e[-−]?\d+)?)",
        ),
        ("batch_size", r"batch size (?:is |was )?(?:set (?:to |as )|of |to |=\s*)?(\d+)"),
        # "for 30 epochs", not a schedule's "every 10 epochs"
        ("epochs", r"(?<!every )(?<!each )(?<!per )\b(\d+) epochs"),
        ("optimizer", r"\b(Adam[W]?|SGD|RMSProp|Adagrad)\b"),
        ("dropout", r"dropout (?:rate )?(?:of |is |=\s*)?([\d.]+)"),
        ("weight_decay", r"weight decay (?:of |is |=\s*)?([\d.eE-]+)"),
        ("seeds", r"(\d+) (?:random )?seeds"),
    ]:
        m = re.search(pat, text, re.I)
        if m:
            out[name] = m.group(1).rstrip(".").replace("−", "-")
    return out


def method_text(ctx: Context, item: Table | Figure, what: str) -> str:
    parts = [what, f"Follow the protocol of {item.label} ({clean_title(item.caption)})."]
    setup = ctx.setup_for(item.label)
    if setup:
        parts.append("Setup reported in the paper: " + " ".join(setup))
    return " ".join(parts)


def lower_first(text: str) -> str:
    """ "The key result" -> "the key result"; "ETTh1 results" stays (an acronym or name)."""
    first = text.split(" ", 1)[0]
    if len(first) >= 2 and first[0].isupper() and first[1:].isalpha() and first[1:].islower():
        return text[0].lower() + text[1:]
    return text


# The end of a caption's first sentence: "… of MSCA. Top-1 means …" ends after "MSCA".
SENTENCE_END = re.compile(
    r"(?<=[a-z0-9)])(?<!\bvs)(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bresp)\.\s|(?<![A-Z]\.)(?<!\b(?:al|vs|eg|ie|No|Eq))(?<=[A-Z]{2})\.\s+(?=[A-Z][a-z])"
)


def topic_of(caption: str) -> str:
    text = re.sub(r"^(Table|Tab\.|Figure|Fig\.)\s*\S+\s*[:.]?\s*", "", caption.strip())
    first = SENTENCE_END.split(text, maxsplit=1)[0].strip().rstrip(".")
    first = re.sub(r"\s+", " ", CITATION.sub("", first))
    # Outcome numbers must not leak into questions.
    first = re.sub(
        r"\d+(?:\.\d+)?%?", lambda m: m.group(0) if "." not in m.group(0) else "…", first
    )
    return (first[:140].rsplit(" ", 1)[0] + "…") if len(first) > 140 else first or "this setting"


CAPTION_DATASET = re.compile(
    # "Results on CIFAR10-LT", not "Ablation on Inserted Layers" (what the study varies)
    r"(?<!(?i:ablation) )(?<!(?i:ablations) )(?<!(?i:study) )(?<!(?i:analysis) )"
    r"(?<!(?i:effect) )(?<!(?i:impact) )"
    r"\b(?:on|over)\s+(?:the\s+)?((?:[A-Z][\w.-]*)(?:[ -](?:[A-Z0-9][\w.-]*)){0,2})"
)


# a later sentence of a caption saying where its experiments ran
CONDUCTED_ON = re.compile(
    r"\b(?i:experiments?|results?)\b[^.;]{0,40}?\b(?:conducted|performed|carried out)\s+on\s+"
    r"(?:the\s+)?([A-Z][\w.-]*(?:[ -][A-Z0-9][\w.-]*){0,2})"
)


# data a caption says its samples come from: "contexts from Wikicorpus", "sentences drawn
# from the BookCorpus", never "results from Table 2" nor "numbers from [12]"
DRAWN_FROM = re.compile(
    r"\b(?i:sentences|contexts|samples|examples|images|texts|documents|passages|questions|"
    r"instances|utterances|articles)\s+(?:(?i:drawn|taken|sampled|collected)\s+)?from\s+"
    r"(?:the\s+)?((?!(?:Table|Tab|Figure|Fig|Section|Eq)\b)[A-Z][\w.-]*(?:[ -][A-Z0-9][\w.-]*){0,2})"
)


CAPTION_BACKBONE = re.compile(
    r"\b(?:using|with|based on|backbone)\s+(?:the\s+|a\s+)?([A-Z][\w.-]*\d[\w.-]*)"
)


METRIC_ON = re.compile(
    r"(?:^|[.;,]\s*|\band\s+)([\w@-]+(?: \([^)]*\))?) (?:means|denotes|is|refers to|indicates)"
    r" [^.;]{0,60}?\bon (?:the )?([A-Z][\w.-]*\d*[\w-]*)"
)


DATASET_NAME = re.compile(
    r"(?=.*(?:\d|[a-z][A-Z]|^[A-Z]{3,}))(?!(?:Table|Tab|Figure|Fig|Section|Eq)\b)"
)


ITEM_REF = re.compile(r"\b(?:Tables?|Tabs?\.|Figures?|Figs?\.)\s*[A-Z]?\d+")


def text_setting(ctx: Context, label: str) -> dict[str, str]:
    """The dataset the sentences citing a table measure it on ("… on ScienceQA val"), when
    they name exactly one that looks like a dataset name (a digit, an inner capital, an
    acronym)."""
    found = {
        m.rstrip(".,")
        for sentence in ctx.sentences_citing(label)
        if len(ITEM_REF.findall(sentence)) == 1  # a sentence about several tables is no guide
        for m in CAPTION_DATASET.findall(sentence)
        if DATASET_NAME.match(m)
    }
    return {"setting": found.pop()} if len(found) == 1 else {}


def about_efficiency(table: Table) -> bool:
    """Is the table about what methods cost (its caption's subject: runtime, memory, …)?
    There cost columns are what is compared; elsewhere they are only what a method pays."""
    return bool(EFFICIENCY_CAPTION.search(topic_of(table.caption)))


# what follows the first of several names: "on MSVD and MSR-VTT", "on LS14 and LS21
# validation sets", "on the ADE20K, Cityscapes and COCO-Stuff", "on Cityscapes (left) and ADE20K"
_MORE_NAMES = re.compile(r"\s*(?:\([^)]{0,20}\)\s*)?(?:,|/|&|\band\b|\bor\b)\s*(?:the\s+)?[A-Z]")


def _named_on(pattern: re.Pattern[str], text: str) -> list[str]:
    """The names `pattern` finds, each "" where it is the first of several: a caption over
    MSVD and MSR-VTT holds neither data set fixed."""
    out = []
    for m in pattern.finditer(text):
        last = m.group(1)
        out.append("" if _MORE_NAMES.match(text, m.end(1)) else last)
    return out


# a setting a caption fixes by a symbol: "(ρ = 50)", "with K = 5", "where λ_1=0.1", "seq_len=336";
# a Greek letter (with a subscript), a one- or two-letter symbol, or a code name with "_"
_SYMBOL_VALUE = re.compile(
    r"(?:\(|\b(?:with|where|when|at|for|and)\s+|[,:;]\s*)"
    r"((?:[\u0391-\u03a9\u03b1-\u03c9](?:_\w+)?)|[A-Za-z]{1,2}(?:_\w+)?|[a-z]+_[a-z_]+)"
    r"\s*=\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)(?!\w|\.\d|\s*,\s*\d)"
)
# symbols a caption gives a correlation by ("Pearson R = 0.47"): an outcome, not a setting
_CORRELATION = {"r", "ρ", "τ", "r2", "R"}


def caption_values(caption: str, cells: frozenset[str] = frozenset()) -> dict[str, str]:
    """Settings a caption's first sentence fixes by a symbol: "Results on CIFAR10-LT (ρ = 50)"
    holds ρ at 50. A value the table's cells hold, a symbol given twice, or a correlation's
    fraction is a result, not a setting."""
    first = SENTENCE_END.split(caption.strip(), maxsplit=1)[0]
    found: dict[str, set[str]] = {}
    for symbol, value in _SYMBOL_VALUE.findall(first):
        found.setdefault(symbol, set()).add(value)
    out = {}
    for symbol, values in found.items():
        value = values.pop() if len(values) == 1 else ""
        fraction = "." in value and abs(float(value)) <= 1
        if value and value not in cells and not (fraction and symbol in _CORRELATION):
            out[symbol] = value
    return out


def caption_constants(caption: str) -> dict[str, str]:
    """Settings a caption fixes for the whole table: "Results on CIFAR10-LT using ResNet18"
    holds the dataset and the backbone constant."""
    topic = topic_of(caption)
    out = {}
    named = list(dict.fromkeys(m.rstrip(".,") for m in _named_on(CAPTION_DATASET, topic)))
    # two ("Top-1 on ImageNet, mIoU on ADE20K") or a list of them hold no one setting
    if len(named) == 1 and named[0]:
        out["setting"] = named[0]
    elif not named:  # "Combining with other methods. The experiment is conducted on CIFAR-100"
        done = {m.rstrip(".,") for m in _named_on(CONDUCTED_ON, caption) if DATASET_NAME.match(m)}
        # "masked word prediction in nonnumeric contexts from Wikicorpus"
        drawn = {m.rstrip(".,") for m in _named_on(DRAWN_FROM, topic)}
        if len(done) == 1 and "" not in done:
            out["setting"] = done.pop()
        elif len(drawn) == 1 and "" not in drawn:
            out["setting"] = drawn.pop()
    # "Top-1 means Top-1 accuracy on ImageNet and mIoU denotes mIoU on ADE20K": where each
    # measure is taken
    for measure, dataset in METRIC_ON.findall(caption):
        out.setdefault(f"{measure} measured on", dataset.rstrip(".,"))
    if m := CAPTION_BACKBONE.search(topic):
        out["backbone"] = m.group(1).rstrip(".,")
    return out
