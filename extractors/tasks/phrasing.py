"""Turning the paper's own finding into a research question, without giving the answer away.

A claim such as "As shown in Table 2, our method consistently outperforms all baselines by
3.1% on CIFAR-10." becomes "Does GateMix consistently outperform all baselines on
CIFAR-10?": the discourse opener and the citation go, the paper's "our method" becomes its
name, the numbers that are the answer are dropped, and the main verb is turned into a
question. When a sentence does not fit that shape, `claim_question` gives None and the
caller keeps its table-shaped question.
"""

from __future__ import annotations

import re

from extractors.numbers import find_numbers

LEAD_IN = re.compile(
    r"\b(?:we|one) (?:can |could )?(?:also )?(?:observe|find|see|note|notice|conclude)d? that\s*:"
    r"\s*(?:\(?\d\)\s*)?",
    re.I,
)
OPENER = re.compile(
    r"^(?:results?\s+(?=[A-Z])|"  # a run-in heading glued to the sentence
    r"(?:tables?|tabs?\.|figures?|figs?\.)\s*[\w.]+(?:\s*(?:and|&|,)\s*(?:tables?|tabs?\.|figures?|"
    r"figs?\.)?\s*[\w.]+)?\s+(?:clearly\s+)?(?:show|demonstrate|indicate|reveal|suggest|confirm|"
    r"illustrate)s?\s+that:?\s+|"
    r"(?:the )?results?\s+(?:show|demonstrate|indicate|reveal|suggest|confirm)s?\s+that:?\s+|"
    r"as (?:tables?|tabs?\.|figures?|figs?\.)\s*[\w.]+(?:\s*\([a-z]\))? (?:clearly )?(?:shows|"
    r"illustrates|indicates|demonstrates|depicts|suggests|reveals|confirms)(?: that)?,?\s+|"
    r"(?:as|which is) (?:can be )?(?:shown|reported|seen|illustrated|presented|listed|"
    r"summari[sz]ed|depicted|demonstrated|observed) (?:in|by|from) [^,]{1,60},\s*|"
    r"according to [^,]{1,60},\s*|(?:from|in) (?:the )?(?:table|fig\w*|results)[^,]{0,50},\s*|"
    r"(?:we|one) (?:can |could )?(?:also )?(?:clearly )?(?:find|found|observe[sd]?|see|saw|note[sd]?|"
    r"notice[sd]?|conclude[sd]?|show(?:s|ed|n)?|demonstrated?|confirm(?:s|ed)?|verif(?:y|ied)) "
    r"that:?\s+(?:\d\)\s*)?|"
    r"it (?:can be|is|was) (?:clearly )?(?:seen|observed|noted|found|shown) (?:from [^,]{1,50} )?"
    r"that\s+|(?:the )?results? (?:in|of|from) [^,]{1,50}? (?:show|indicate|demonstrate|"
    r"suggest|reveal|confirm)s? that\s+|"
    r"(?:for instance|for example|in particular|moreover|furthermore|additionally|overall|"
    r"notably|specifically|"
    r"besides|also|clearly|first(?:ly)?|second(?:ly)?|third(?:ly)?|finally|importantly|"
    r"interestingly|similarly|in addition|in contrast|meanwhile|on the other hand|"
    r"in summary|to summari[sz]e|generally|in general|surprisingly|as expected|concretely|"
    r"as a result|in detail|to be specific|in practice|empirically|indeed|thus|hence|therefore|"
    r"consequently|again|similarly|likewise|on average|as shown|as expected|in all cases|"
    r"in most cases|across (?:all|the) \w+),?\s+)",
    re.I,
)
LABEL_REF = re.compile(
    r"\s*\((?:see |cf\.? )?(?:Tab(?:le)?s?\.?|Fig(?:ure)?s?\.?|Sec(?:tion)?\.?|App\w*\.?)"
    r"[^()]{0,40}\)|"
    r",?\s*(?:as )?(?:shown|reported|seen|illustrated|presented|listed|summari[sz]ed) "
    r"in (?:Tab(?:le)?s?\.?|Fig(?:ure)?s?\.?)\s*[\w.]+(?:\s*\([a-z]\))?,?",
    re.I,
)
CITE = re.compile(r"\s*\[[\d,;\s–-]+\]|\s*\([A-Z][^()]{0,60}\d{4}[a-z]?\)")
OURS = re.compile(
    r"\b(?:our (?:proposed )?(?:method|model|approach|framework|system|algorithm)s?|"
    r"the proposed (?:method|model|approach|framework)|ours)\b",
    re.I,
)
NUMBER_PHRASE = re.compile(
    r"\s*\((?:[^()]*\d[^()]*)\)|"  # (55.2 vs. 53.1), (+3.1%)
    r"\s*\b(?:by|of|to|from|at|with|reaching|achieving)\s+(?:about |around |over |up to |nearly "
    r"|almost |roughly |more than |less than )?[-+]?\d[\d,]*(?:\.\d+)?(?:\s*(?:%|points?\b|pp\b|x\b|×))?"
    r"(?:\s*(?:and|to|vs\.?)\s*[-+]?\d[\d,]*(?:\.\d+)?(?:\s*(?:%|points?\b|pp\b|x\b|×))?)?"
    r"(?:\s+(?-i:(?=[A-Za-z@-]*[A-Z])[A-Za-z@-]{1,10})\b)?|"  # a metric named after it
    r"\s*[-+]?\d+\.\d+(?:\s*(?:%|points?\b|pp\b|x\b|×))?|\s*\b\d+(?:\.\d+)?\s*%",
    re.I,
)
VERB = {  # third person and past -> base form; irregular ones spelled out
    "outperforms": "outperform", "outperformed": "outperform", "surpasses": "surpass",
    "surpassed": "surpass", "achieves": "achieve", "achieved": "achieve", "improves": "improve",
    "improved": "improve", "reduces": "reduce", "reduced": "reduce", "increases": "increase",
    "increased": "increase", "decreases": "decrease", "decreased": "decrease", "yields": "yield",
    "yielded": "yield", "gives": "give", "gave": "give", "leads": "lead", "led": "lead",
    "brings": "bring", "brought": "bring", "helps": "help", "helped": "help",
    "performs": "perform", "performed": "perform", "beats": "beat", "exceeds": "exceed",
    "exceeded": "exceed", "obtains": "obtain", "obtained": "obtain", "attains": "attain",
    "remains": "remain", "remained": "remain", "stays": "stay", "grows": "grow", "grew": "grow",
    "drops": "drop", "dropped": "drop", "degrades": "degrade", "degraded": "degrade",
    "converges": "converge", "converged": "converge", "scales": "scale", "benefits": "benefit",
    "boosts": "boost", "boosted": "boost", "enables": "enable", "matches": "match",
    "matched": "match", "reaches": "reach", "reached": "reach", "falls": "fall", "fell": "fall",
    "lags": "lag", "rises": "rise", "rose": "rise", "requires": "require",
    "produces": "produce", "produced": "produce", "shows": "show",
    "showed": "show", "demonstrates": "demonstrate", "consistently": "",
    "generalizes": "generalize", "generalises": "generalise", "saturates": "saturate",
    "contributes": "contribute", "contributed": "contribute", "hurts": "hurt",
    "plateaus": "plateau", "declines": "decline", "declined": "decline", "gains": "gain",
    "closes": "close", "narrows": "narrow", "widens": "widen", "dominates": "dominate",
    "dominated": "dominate", "competes": "compete", "excels": "excel", "excelled": "excel", "sets": "set",
    "establishes": "establish", "established": "establish", "provides": "provide",
    "delivers": "deliver", "delivered": "deliver", "ranks": "rank", "ranked": "rank",
    "enjoys": "enjoy", "wins": "win", "won": "win", "retains": "retain", "maintains": "maintain",
    "is": "", "are": "", "was": "", "were": "", "can": "", "could": "", "has": "have",
    # base forms, after a plural subject ("GEPA and ACE lose …"): asked with "Do"
    "outperform": "outperform", "achieve": "achieve", "lose": "lose", "perform": "perform",
    "improve": "improve", "reduce": "reduce", "yield": "yield", "remain": "remain",
    "reach": "reach", "surpass": "surpass", "exceed": "exceed", "degrade": "degrade",
    "fail": "fail", "struggle": "struggle", "benefit": "benefit", "suffer": "suffer",
    "converge": "converge", "lag": "lag", "obtain": "obtain", "show": "show",
    "have": "have", "had": "have",
}  # fmt: skip
BE = {"is": "Is", "are": "Are", "was": "Is", "were": "Are"}
ADVERB = re.compile(
    r"(?:consistently|significantly|substantially|clearly|largely|further|still|also|"
    r"generally|greatly|notably|slightly|steadily|markedly|considerably|dramatically|always)$",
    re.I,
)
MAX_SUBJECT_WORDS = 12
# Where the finding ends and its interpretation begins: not part of the question.
TRAILING_CLAUSE = re.compile(
    r",\s*(?:which|suggesting|indicating|showing|demonstrating|proving|implying|meaning|"
    r"confirming|thanks to|because|since|due to|outperforming|surpassing|beating|exhibiting|"
    r"verifying|achieving|yielding|leading to|resulting in|validating|highlighting)\b|;\s+|"
    r"\s+\((?:see|cf)\b|"
    r",?\s+(?:but|while|whereas)\s+(?:its|their|it|the|they)\b",
    re.I,
)
MAX_QUESTION_WORDS = 45
POINTER_SUBJECT = re.compile(r"(?:tables?|tabs?\.?|figures?|figs?\.?|results?)$", re.I)
LEADING_PREPOSITIONS = frozenset(
    [
        "for",
        "in",
        "on",
        "at",
        "across",
        "with",
        "under",
        "except",
        "when",
        "while",
        "after",
        "compared",
        "given",
        "by",
        "from",
        "as",
        "if",
        "since",
        "although",
        "though",
        "unlike",
        "despite",
        "without",
        "to",
        "considering",
    ]
)
# A subject holding a clause is a sentence we cannot safely turn around.
CLAUSE_WORDS = frozenset(
    ["that", "which", "where", "when", "whether", "because", "reason", "this", "it"]
)


# A table's legend run into the paragraph by the text layer: two or more "ABBR: Title
# Words" in a row ("ZS: Zero Shot Prompting FS∗: Best Performance among Few Shot …").
_LEGEND_ITEM = r"\b[A-Z][A-Za-z]{0,3}[∗*†]?: [A-Z][\w-]*(?: (?:[A-Z][\w-]*+(?![:∗*†])|among|of|the|and|with|for))*"
LEGEND = re.compile(rf"(?:{_LEGEND_ITEM}\s*){{2,}}")


def clean_claim(text: str, method: str = "") -> str:
    """The claim without its opener, citations and table pointers; "our method" named."""
    text = re.sub(r"\s+", " ", text).strip()
    lead = LEAD_IN.search(
        text
    )  # "The results are placed in Table 4, from which we observe that: (1) …"
    if lead and len(text[lead.end() :].split()) >= 5:
        text = text[lead.end() :]
    for _ in range(3):  # openers stack: "Moreover, as shown in Table 2, we observe that …"
        text = OPENER.sub("", text, count=1).strip()
    text = CITE.sub("", LABEL_REF.sub("", text))
    text = LEGEND.sub(" ", text)
    if method:
        text = OURS.sub(method, text)
    return re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip(" ,;")


def _without_numbers(text: str) -> str:
    share = r"(?:more|over|less|fewer) than \d+(?:\.\d+)?\s*% of"
    text = re.sub(share, lambda m: "most of" if m.group(0)[0] in "mo" else "few of", text)
    text = NUMBER_PHRASE.sub("", text)
    text = re.sub(r"\s*,\s*(?:,\s*)+", ", ", text)
    text = re.sub(r"\b(on|in|for) ((?:[\w-]+ )?)?,", r"\1 \2", text)
    return re.sub(r"\s{2,}", " ", text).strip(" ,;.")


def claim_question(claim: str, method: str = "") -> str | None:
    """A yes/no research question asking whether the claim holds, or None when the sentence
    is not "subject + verb + rest" in a way that can be inverted safely."""
    text = _without_numbers(clean_claim(claim, method))
    text = re.sub(r"^we\b", method or "the proposed method", text, flags=re.I)
    text = re.sub(r"\b[Oo]ur (?:proposed |new )?(?=[A-Z])", "", text)  # "our X" -> "X"
    if method:  # "our method" -> "TimesNet"; "our design" -> "TimesNet's design"
        text = OUR_METHOD.sub(method, text)
        text = OUR_PART.sub(lambda m: f"{method}'s {m[1]}", text)
    text = re.sub(r"\b(these|those)\b", "the", text, flags=re.I)
    words = text.rstrip(".!").split()
    if len(words) < 4:
        return None
    for i, word in enumerate(words[: MAX_SUBJECT_WORDS + 1]):
        low = word.lower()
        if i == 0 or low not in VERB or low == "consistently":
            continue
        subject = words[:i]
        adverbs: list[str] = []
        while len(subject) > 1 and ADVERB.match(subject[-1]):
            adverbs.insert(0, subject.pop())
        rest = words[i + 1 :]
        if (
            not rest
            or any("," in w for w in subject)
            or subject[0].lower() in LEADING_PREPOSITIONS
            or POINTER_SUBJECT.match(subject[0])
            or any(w.lower() in CLAUSE_WORDS for w in subject)
            or subject[-1].lower() in ("that", "which", "and", "or", "while", "when")
            or len(words) > MAX_QUESTION_WORDS
        ):
            return None
        subj = _lower_initial(" ".join(subject), method, text)
        body = TRAILING_CLAUSE.split(" ".join(rest), maxsplit=1)[0]
        plural = (low in BE and low in ("are", "were")) or (low not in BE and low == VERB[low])
        opened = _open_question(subj, VERB.get(low, low), body, plural)
        if opened is not None:  # asked openly: the question does not hand over the direction
            return opened if _safe(opened, claim) else None
        if low in BE:
            head = f"{BE[low]} {subj} {' '.join(adverbs)}".rstrip()
        elif low in ("can", "could"):
            head = f"Can {subj} {' '.join(adverbs)}".rstrip()
        else:
            aux = "Do" if low == VERB[low] else "Does"  # a base form follows a plural subject
            head = f"{aux} {subj} {' '.join([*adverbs, VERB[low]])}".rstrip()
            body = COORDINATED.sub(_base_form, body)  # "… and outperforms Y" -> "and outperform Y"
        question = f"{head} {body}".strip().rstrip(" ,;:.") + "?"
        return question if _safe(question, claim) else None
    return None


OUR_METHOD = re.compile(
    r"\b[Oo]ur (?:proposed |new |full )?(?:method|approach|model|framework|system)\b(?!s)"
)
OUR_PART = re.compile(
    r"\b[Oo]ur (?:proposed |new )?(design|module|architecture|strategy|mechanism|"
    r"component|encoder|decoder|attention|loss|objective)\b"
)
COORDINATED = re.compile(r"\b(and|or|but also|but) (\w+s)\b")


def _base_form(m: re.Match[str]) -> str:
    """A second verb of the claim after "and", in the base form the question's "Does" needs;
    only present-tense "-s" forms, which never read as adjectives ("reduced memory" does)."""
    word = m[2].lower()
    base = VERB.get(word)
    return f"{m[1]} {base}" if base and base != word else m[0]


COMPARE_VERBS = frozenset(
    [
        "outperform",
        "surpass",
        "beat",
        "exceed",
        "match",
        "lag",
        "dominate",
        "rival",
        "compete",
        "excel",
    ]
)
TREND_VERBS = frozenset(
    [
        "increase",
        "decrease",
        "grow",
        "drop",
        "degrade",
        "rise",
        "fall",
        "improve",
        "decline",
        "saturate",
        "converge",
        "scale",
    ]
)
EFFECT_VERBS = TREND_VERBS | frozenset(
    [
        "reduce",
        "help",
        "hurt",
        "benefit",
        "boost",
        "improve",
        "lower",
        "raise",
        "cost",
        "contribute",
        "yield",
        "bring",
        "lead",
    ]
)
RANK_VERBS = frozenset(["achieve", "obtain", "attain", "reach", "set", "deliver", "yield", "show"])
SUPERLATIVE = re.compile(
    r"^(?:the |a |new |consistent |overall )*(?:best|highest|lowest|top|state-of-the-art|sota|"
    r"leading|strongest)(?: (?:results?|performance))?(?: (?:in|on|for|of|among)\b)?\s*",
    re.I,
)
THAN = re.compile(
    r"^(?:\w+ )?(?:better|worse|higher|lower|superior|inferior|faster|slower|stronger|weaker|"
    r"more accurate|less accurate|competitive|comparable|on par)\b(?: (?:than|to|with))?\s+",
    re.I,
)
INTENSITY = re.compile(
    r"\b(?:significantly|substantially|considerably|remarkably|dramatically|greatly|clearly|"
    r"consistently|much|even|still|further|far|by a (?:large|wide|clear|considerable|"
    r"significant|small) margin|by a large amount)\b\s*",
    re.I,
)


def _open_question(subject: str, verb: str, rest: str, plural: bool) -> str | None:
    """ "X outperforms Y on Z" -> "How does X compare with Y on Z?"; "accuracy rises with
    depth" -> "How does accuracy change with depth?"; None for other shapes."""
    rest = INTENSITY.sub("", rest).strip(" ,;:.")
    does = "do" if plural else "does"
    if verb in COMPARE_VERBS and rest:
        return f"How {does} {subject} compare with {rest}?"
    if verb == "" and (m := THAN.match(rest)):
        return f"How {does} {subject} compare with {rest[m.end() :]}?" if rest[m.end() :] else None
    if verb in RANK_VERBS and (m := SUPERLATIVE.match(rest)) and rest[m.end() :]:
        return f"How {does} {subject} rank on {rest[m.end() :]}?"  # "achieves the best X"
    if verb in TREND_VERBS and re.match(r"(?:with|as|over|across|when|along)\b", rest):
        return f"How {does} {subject} change {rest}?"
    if re.match(r"\w+ing\b", subject) and verb in EFFECT_VERBS and rest:
        return f"How {does} {subject} affect {rest}?"  # "removing the gate degrades …"
    return None


# Words that open a subject in sentence case only; any other capitalised first word is
# taken for a name.
COMMON_OPENERS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "these",
        "those",
        "each",
        "every",
        "all",
        "both",
        "such",
        "most",
        "many",
        "other",
        "its",
        "their",
        "any",
        "some",
        "performance",
        "accuracy",
        "results",
        "result",
        "error",
        "loss",
        "training",
        "data",
        "similarity",
        "similarities",
        "increasing",
        "larger",
        "smaller",
        "deeper",
        "more",
        "fewer",
    ]
)


def _lower_initial(subject: str, method: str = "", text: str = "") -> str:
    """ "The full model" -> "the full model"; names keep their case: the method, acronyms,
    and a word the sentence also capitalises where no sentence starts ("… for Trace")."""
    first = subject.split(" ", 1)[0]
    if method and first.lower() == method.lower():
        return subject
    if re.search(rf"(?<![.!?] )\b{re.escape(first)}\b", text[len(first) :]):
        return subject
    low = first.lower()
    if first[:1].isupper() and (low in COMMON_OPENERS or low.endswith("ing")):
        return subject[0].lower() + subject[1:]
    return subject  # a name ("Ham", "Trace"): kept as printed


def _safe(question: str, claim: str) -> bool:
    """No outcome number (a decimal or a percentage) of the claim survives in the question."""
    decimals = {n for n in find_numbers(claim) if "." in n or n + "%" in claim}
    return not decimals & set(find_numbers(question)) and len(question.split()) >= 5


TREND_VARIABLE = re.compile(
    r"\b(?:increas\w*|grow\w*|grew|improv\w*|decreas\w*|scal\w*|chang\w*|ris\w*|rose|"
    r"drop\w*|declin\w*|degrad\w*|saturat\w*|vary|varies)\s+(?:steadily |consistently )?"
    r"(?:with|as|over|across|along)\s+(?:the\s+|an?\s+)?(?:increasing\s+|growing\s+|larger\s+)?"
    r"(more\s+)?([a-z][\w -]{2,40}?)(?=\s+(?:increases|grows|is increased|goes up|goes on|goes|"
    r"proceeds|progresses|continues|decreases|and|while|but|for|in|on|is)\b|[,.;)]|$)|"
    r"\bas (?:the )?([a-z][\w -]{2,40}?) (?:increases|grows|decreases|is increased|goes up|"
    r"goes on|goes|proceeds|progresses|continues)",
    re.I,
)


def trend_variable(claim: str) -> str | None:
    """What a trend claim varies: "improved with the number of simulations" -> "the number of
    simulations"; None when the sentence names no such variable."""
    m = TREND_VARIABLE.search(_without_numbers(clean_claim(claim)))
    if m is None:
        return None
    var = (m.group(2) or m.group(3) or "").strip()
    if len(var.split()) > 6 or not re.search(r"[a-z]{3}", var):
        return None
    if m.group(1):  # "with more layers": the number of layers varies
        return f"the number of {var}"
    return var if var.lower().startswith(("the ", "a ", "an ")) else f"the {var}"


def names_any(text: str, words: list[str]) -> bool:
    """Does `text` name one of `words` as a whole word, any case ("F1" in "the F1 score", not
    "P" inside "perform")?"""
    low = text.lower()
    return any(re.search(rf"(?<!\w){re.escape(w.lower())}(?!\w)", low) for w in words)


def and_list(items: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def share(part: int, whole: int) -> str:
    """A count in words that a grader can check against the table without new numbers."""
    if whole and part == whole:
        return "all"
    ratio = part / whole if whole else 0.0
    for bound, words in ((0.0, "none"), (0.34, "few"), (0.6, "about half"), (0.999, "most")):
        if ratio <= bound:
            return words
    return "all"
