"""Triage: what kind of message is this — WORK, DOC-QUERY, CODE-QUERY, STATUS or CLARIFY?

The heuristic is the default and needs nothing: keyword and pattern rules, each with a
weight and a reason, summed per category. Two structural rules carry the most weight: a
message that starts with an action verb on something concrete is WORK; a message that
names nothing concrete is CLARIFY. A question with no sign of code or status is read as a
question for the documentation. With a local model configured, the model is asked first
and the heuristic answers whenever the model cannot. docs/FORKS.md lists every rule.
"""

import re
from dataclasses import dataclass, field

WORK, DOC, CODE, STATUS, CLARIFY = "WORK", "DOC-QUERY", "CODE-QUERY", "STATUS", "CLARIFY"
CATEGORIES = (WORK, DOC, CODE, STATUS, CLARIFY)
# When two categories score the same, the earlier one wins.
PRECEDENCE = (WORK, STATUS, CODE, DOC, CLARIFY)

IMPERATIVE_WEIGHT = 6

ACTIONS = frozenset("""
add adapt adjust allow apply archive build bump change clean configure convert create cut
debug delete deploy document draft drop enable disable elevate extend extract fill fix fork
generate handle implement improve install integrate make merge migrate move optimise optimize
patch port publish push refactor release remember remove rename reorder replace restore
revert rewrite run save scaffold set ship sort split start stop switch tag test translate
tidy trim undo update upgrade wire write redo do
speed cache simplify reduce increase shorten lengthen expand harden tighten loosen batch
parallelise parallelize profile benchmark verify validate ensure prevent avoid support introduce
expose hide log rework reword rebase squash bisect reproduce investigate fetch pull
put turn hook
""".split())
# Phrasal verbs whose first word says nothing on its own ('get rid of' → 'remove').
PHRASAL = {"get rid of": "remove"}
QUESTION_VERBS = frozenset("explain show tell describe summarise summarize remind clarify walk".split())
QUESTION_WORDS = frozenset("what whats where wheres which who why when how hows is are does do did "
                           "was were has have can could should would".split())
LEAD_INS = (
    "please", "pls", "ok", "okay", "so", "now", "also", "and", "then", "just", "hey",
    "can you", "could you", "would you", "will you", "can we", "could we", "lets", "let us",
    "i need you to", "i want you to", "id like you to", "i would like you to", "go ahead and",
)
STOP = frozenset("""
a an the to of in on at for from by with as and or but if so then than too very is are was were be
been being am do does did doing done have has had i me my we our us you your it its this that these
those there here what whats where wheres which who whom why when how hows can could would should will
shall may might must not no yes let lets im ive youre dont doesnt isnt arent cant wont didnt thats
theres heres please pls ok okay now just also again some any all every each
""".split())
VAGUE = frozenset("""
thing things stuff one ones other another better worse same different before after usual way ways
approach something anything everything whatever above previous last time times like kind sort out
about off broken wrong work works working fine good bad nice hmm hm um uh huh nope yeah yep sure
maybe perhaps talked discussed said mentioned know look into go on again right left
rest think
""".split())

_SNAKE = r"\b_?[a-z][a-z0-9]*_[a-z0-9_]+\b|\b_[A-Za-z]\w*"
_DOTTED = r"\b[A-Za-z_]\w*\.(?!(?:md|toml|txt|json|ya?ml|tsv|csv|html?|example)\b)[a-z_]\w*\b"


@dataclass(frozen=True)
class Rule:
    category: str
    weight: int
    pattern: re.Pattern
    reason: str


def _rule(category: str, weight: int, pattern: str, reason: str, flags: int = re.IGNORECASE) -> Rule:
    return Rule(category, weight, re.compile(pattern, flags), reason)


RULES: tuple[Rule, ...] = (
    # STATUS: where the work stands.
    _rule(STATUS, 3, r"^\W*(?:any |a |quick )*(?:status|update|updates|progress|news|eta)\W*$", "a bare request for status"),
    _rule(STATUS, 3, r"\b(?:status|progress)\b", "asks about status or progress"),
    _rule(STATUS, 3, r"\b(?:quick|an|any|status) update\b|\bany (?:news|luck|progress)\b", "asks for an update"),
    _rule(STATUS, 3, r"\bhow(?:'s| is| are| was)\b.*\b(?:going|coming along|getting on|progressing)\b",
          "asks how the work is going"),
    _rule(STATUS, 3, r"\bwhere (?:are|were) we\b|\b(?:leave|left) off\b|\bhow far\b|\bwhere (?:do|does) .*\bstands?\b",
          "asks where the work stands"),
    _rule(STATUS, 3, r"\bwhat(?:'s| is| remains)? (?:left|remaining|still open)\b|\bstill open\b|\bso far\b|"
                     r"\bwhat(?:'s| is| has been) (?:done|finished|complete)\b",
          "asks what is done or left"),
    _rule(STATUS, 3, r"\b(?:done|finished|ready|complete|over|back) yet\b|\byet\W*$", "asks whether something is done yet"),
    _rule(STATUS, 3, r"^\W*(?:is|are|has|have|did|was|were)\b.*\b(?:done|finished|ready|complete|completed|passing|passed|"
                     r"green|red|running|returned|installed|merged|deployed|released|succeed|succeeded|run|pass|fail|"
                     r"failed|failing|open|closed)\b", "asks whether something is done, running or passing"),
    _rule(STATUS, 3, r"^\W*(?:have|did|has) you\b|\bwhat (?:did|have) you\b", "asks what was done"),
    _rule(STATUS, 3, r"\bworking on\b|\bblock(?:ing|ed|er|ers)\b|\bwhat happened\b|\bpending\b",
          "asks what is under way, blocked or pending"),
    _rule(STATUS, 3, r"\bhow many\b.*\b(?:open|left|pending|running|active|done)\b", "counts what is open or done"),
    _rule(STATUS, 3, r"\b(?:what|which) (?:phase|unit)\b", "asks about the current phase or unit"),
    _rule(STATUS, 2, r"\bcurrent(?:ly)?\b|\bright now\b", "asks about the present state"),
    _rule(STATUS, 1, r"\b(?:today|yesterday|this morning|since)\b", "asks about recent time"),
    # CODE-QUERY: the code itself.
    _rule(CODE, 2, _SNAKE, "names a code identifier", 0),
    _rule(CODE, 2, _DOTTED, "names a module.member", 0),
    _rule(CODE, 2, r"\b\w+\(\)", "names a call"),
    _rule(CODE, 2, r"\.(?:py|pyi|js|ts|tsx|rs|go|java|kt|c|h|cpp|hpp|rb|sh|php|swift)\b", "names a source file"),
    _rule(CODE, 2, r"\b[A-Za-z]*(?:Error|Exception|Warning|Timeout)\b", "names an exception", 0),
    _rule(CODE, 1, r"\b[A-Z][a-z]+[A-Z]\w*\b", "names a CamelCase class", 0),
    _rule(CODE, 1, r"`[^`]+`", "quotes code"),
    _rule(CODE, 2, r"\b(?:functions?|methods?|class|classes|modules?|variables?|arguments?|parameters?|signature|"
                   r"return type|returns?|defined|definition|implementation|implemented|calls?|called|callers?|"
                   r"imports?|imported|regex|traceback|stack trace|exceptions?|raises?|raised|decorators?|"
                   r"overrid(?:e|es|ing)|subclass(?:es)?|instances?|tuples?|dict|dictionary|constants?|line \d+)\b", "asks about code constructs"),
    _rule(CODE, 2, r"^\W*where(?:'s| is| are| do| does)\b.*\b(?:computed|calculated|stored|handled|parsed|"
                   r"validated|checked|set|built|created|loaded|counted|rendered|sorted|written|read)\b",
          "asks where something happens in the code"),
    _rule(CODE, 2, r"^\W*where (?:does|do) (?!we\b|i\b|you\b|things\b)(?:the )?\w+ (?!stand)\w+",
          "asks where a part does something"),
    _rule(CODE, 2, r"\b(?:who|what) (?:uses|calls|imports|reads|writes|sets|changes)\b", "asks who uses something"),
    _rule(CODE, 1, r"\b[A-Z][A-Z0-9]*_?[A-Z0-9_]{3,}\b(?!\.md)", "names a CONSTANT", 0),
    _rule(CODE, 2, r"\b(?:in|the|our) (?:source )?code\b|\btests? (?:cover|covers|covering)\b",
          "asks about the code or its tests"),
    # DOC-QUERY: what is written down.
    _rule(DOC, 3, r"\b(?:docs?|documentation|documented|readme|guide|spec|specification|design|architecture|manual|"
                  r"faq|wiki)\b|\b\w+\.md\b", "refers to the documentation"),
    _rule(DOC, 3, r"\b(?:did|have|had) we decide\b|\bdecided\b|\bdecisions?\b", "asks about a decision"),
    _rule(DOC, 2, r"\bconventions?\b|\bpolic(?:y|ies)\b|\brecommend(?:ed|s|ation)?\b|\baccording to\b|\bsays? about\b|"
                  r"\bper the\b|\bmean(?:s|ing)?\b|\bpurpose\b|\bconcept(?:s|ually)?\b|\bdifference between\b",
          "asks what is meant or agreed"),
    _rule(DOC, 2, r"^\W*(?:what(?:'s| is| are)) (?:a|an|the \w+ (?:of|for))\b|^\W*what are the\b", "asks what something is"),
    _rule(DOC, 2, r"\bhow (?:do|should|can|would) (?:i|we|you|an? \w+)\b|\bhow to\b|\bconfigur(?:e|ed|ing)\b|\bset up\b",
          "asks how to do or set something up"),
    _rule(DOC, 2, r"^\W*(?:(?:can|could) you )?(?:explain|describe|summari[sz]e|tell me about|remind me)\b",
          "asks for an explanation"),
    _rule(DOC, 1, r"\bformat(?:s|ted)?\b", "asks about a format"),
)
CONTEXT_ONLY = _rule(CLARIFY, 3, r"\blike (?:last time|before)\b|\bthe usual\b|\b(?:we|you) (?:talked|discussed|said)\b|"
                                 r"\bsame as before\b|\byou know what\b", "leans on context that is not given")


@dataclass
class Triage:
    category: str
    reason: str
    method: str = "heuristic"
    scores: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"category": self.category, "reason": self.reason, "method": self.method, "scores": self.scores}


def triage(text: str, memory=None, *, use_model: bool = True) -> Triage:
    """The category of ``text``: the local model's when one is configured and answers, else the heuristic's."""
    guess = classify(text)
    if use_model and memory is not None:
        from souveraine.forks import triage_model

        answer = triage_model.ask(memory, text)
        if answer is not None:
            return Triage(answer[0], answer[1], "model", guess.scores)
    return guess


def classify(text: str) -> Triage:
    """The heuristic: sum the weights of the rules that match; the highest category wins."""
    plain = " ".join(str(text).split())
    scores = dict.fromkeys(CATEGORIES, 0)
    reasons: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    for rule in (*RULES, CONTEXT_ONLY):
        if rule.pattern.search(plain):
            scores[rule.category] += rule.weight
            reasons[rule.category].append(rule.reason)
    words = _words(plain)
    head = _head(words)
    concrete = [w for w in words if w not in STOP and w not in VAGUE and w not in ACTIONS
                and w not in QUESTION_VERBS and len(w) > 1]
    if head in ACTIONS and concrete:
        scores[WORK] += IMPERATIVE_WEIGHT
        reasons[WORK].insert(0, f"starts with an action ('{head}') on something concrete")
    strongest = max(scores[c] for c in (STATUS, CODE, DOC, WORK))
    if not concrete and strongest < 3:
        scores[CLARIFY] += 4
        named = ", ".join(words[:4]) or "nothing"
        reasons[CLARIFY].insert(0, f"names nothing concrete to act on or ask about ({named})")
    elif strongest == 0 and scores[CLARIFY] == 0:
        if _is_question(plain, words):
            scores[DOC] += 1
            reasons[DOC].append("a question with no sign of code or status, so one for the documentation")
        else:
            scores[CLARIFY] += 1
            reasons[CLARIFY].append("neither a request nor a question")
    best = max(PRECEDENCE, key=lambda c: (scores[c], -PRECEDENCE.index(c)))
    return Triage(best, "; ".join(dict.fromkeys(reasons[best])), "heuristic", scores)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_]+", text.lower().replace("'", "").replace("\u2019", ""))


def _head(words: list[str]) -> str:
    """The first word after polite lead-ins ('could you please add…' → 'add')."""
    rest = " ".join(words)
    for phrase, verb in PHRASAL.items():
        rest = rest.replace(phrase, verb)
    changed = True
    while changed:
        changed = False
        for lead in LEAD_INS:
            if rest == lead or rest.startswith(lead + " "):
                rest = rest[len(lead):].lstrip()
                changed = True
    return rest.split(" ", 1)[0] if rest else ""


def _is_question(text: str, words: list[str]) -> bool:
    return text.rstrip().endswith("?") or bool(words) and (words[0] in QUESTION_WORDS or words[0] in QUESTION_VERBS)


def accuracy(rows: list[tuple[str, str]]) -> dict:
    """How often the heuristic agrees with a labelled set of (category, text) rows."""
    misses = []
    for expected, text in rows:
        got = classify(text)
        if got.category != expected:
            misses.append({"text": text, "expected": expected, "got": got.category, "reason": got.reason})
    total = len(rows)
    return {"total": total, "correct": total - len(misses), "accuracy": (total - len(misses)) / total if total else 0.0,
            "misses": misses}
