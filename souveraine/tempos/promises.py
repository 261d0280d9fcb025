"""Promises: where the assistant binds itself to an action it has not done yet.

A promise is the assistant, speaking for itself, committing to an action to come —
"I'll save that", "let me note that", "I'll commit the fix", "I'll get back to you" —
with no condition the user must meet first. Questions, offers ("I can…", "I'd…"),
conditionals ("if you want, I'll…"), hedges ("maybe", "try to"), negations, reported
speech, other subjects, past tense, and actions done right now in the same answer
("let me explain") are not promises. docs/SUBCONSCIOUS.md gives the rule and the
figures measured on tests/data/promises.tsv.

Each promise has a kind: ``save`` (keep something in memory: the subconscious keeps it
itself), ``commit`` (commit or push), ``follow_up`` (come back to the user), ``do`` (any
other deliverable). A deterministic reading of the sentence, no model: it runs on every turn.
"""

import re
from dataclasses import dataclass

from souveraine.language.sentences import split
from souveraine.language.words import normal, stem, tokens

KINDS = ("save", "commit", "follow_up", "do")


@dataclass(frozen=True)
class Promise:
    sentence: str      # the sentence as the assistant wrote it
    kind: str          # save | commit | follow_up | do
    verb: str          # the action's verb, for recognising it kept later ("fix" → "fixed")
    content: str = ""  # what to remember, when the sentence says it ("remember that X")
    end: int = 0       # offset in the text just after the sentence

    def to_dict(self) -> dict:
        return {"sentence": self.sentence, "kind": self.kind, "verb": self.verb, "content": self.content}


# -- the frame: who commits, and how ----------------------------------------------------

_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")

_FRAME = re.compile(r"\b(?:i|we)(?:'ll| will| shall)\b|\bi(?:'m| am) (?:going|gonna|about) to\b|\bwe(?:'re| are) going to\b"
                    r"|\bi (?:promise|intend|plan) to\b|\blet me\b")
_PROGRESSIVE = re.compile(r"(?:\bi(?:'m| am) (?:now )?|^)(saving|noting|committing|pushing|recording|storing|logging)"
                          r" (?:that|this|it|these|those|your)\b")
_ADVERBS = re.compile(r"^(?:(?:also|now|just|then|first|next|definitely|certainly|quickly|still|gladly|happily|"
                      r"go ahead and|make sure to|make sure i|be sure to)\s+)+")
_NEGATION = re.compile(r"^(?:not|never|n't)\b")
_HEDGE_AFTER = re.compile(r"^(?:probably|maybe|perhaps|possibly|try to|try and|see|think|consider)\b")
_HEDGE_BEFORE = re.compile(r"\b(?:maybe|perhaps|possibly|hopefully|not sure|wonder whether|wonder if|doubt|hope)\b")
_REPORTED = re.compile(r"\b(?:said|say|says|told \w+|promised|claims?|claimed|mentioned|wrote|agreed|asked)\b[^,;:]*$")
_CONDITION = re.compile(r"\b(?:unless|should you|in case|provided that|whenever you)\b|(?<!\bcheck )(?<!\bsee )"
                        r"(?<!\bfind out )(?<!\bknow )(?<!\bask )(?<!\bverify )(?<!\btest )\bif\b")

# -- the action: what is promised -------------------------------------------------------

_MEMORY_PLACE = r"(?:memory|memories|notes?|journal|preferences|profile|learnings(?: file)?|knowledge base|records?|log)"
_OBJECT = r"(?:that|this|it|these|those|them|your [\w' -]+?|the [\w' -]+?|[\w'-]+)"
_SAVE = [
    (re.compile(rf"^commit {_OBJECT}? ?to memory\b"), "save"),
    (re.compile(r"^(?:save|memori[sz]e|bookmark|jot|log|store|record)\b"), "save"),
    (re.compile(r"^remember\b"), "remember"),
    (re.compile(r"^note\b"), "note"),
    (re.compile(r"^write (?:[\w' -]+ )?down\b|^write (?:that|this|it) (?:down|in)\b"), "write down"),
    (re.compile(r"^(?:keep|bear) (?:that |this |it |them )?in mind\b"), "keep in mind"),
    (re.compile(r"^keep (?:a (?:\w+ )?note|track)\b|^(?:make|take) (?:a (?:\w+ )?)?notes? (?:of )?"), "note"),
    (re.compile(r"^file (?:that|this|it) away\b"), "file away"),
    (re.compile(rf"^(?:add|put) .*\b(?:to|in|into) (?:my|your|the|our) (?:[\w-]+ )?{_MEMORY_PLACE}\b"), "add"),
    (re.compile(r"^make sure (?:that )?.*\b(?:gets|is) (?:saved|noted|remembered|stored)\b"), "save"),
]
_COMMIT = [
    (re.compile(r"^(?:commit|push|squash)\b"), None),
    (re.compile(r"^make a commit\b"), "commit"),
]
_FOLLOW_UP = [
    (re.compile(r"^follow up\b"), "follow up"),
    (re.compile(r"^(?:get|come|circle|check|report) back\b"), "back"),
    (re.compile(r"^check in with\b"), "check in"),
    (re.compile(r"^remind\b"), "remind"),
    (re.compile(r"^(?:ping|email|message|text|call) (?:you|him|her|them)\b"), None),
    (re.compile(r"^send you\b"), "send"),
    (re.compile(r"^let you know\b"), "let you know"),
    (re.compile(r"^keep you (?:posted|updated|informed|in the loop)\b"), "keep you posted"),
    (re.compile(r"^update you\b"), "update"),
    (re.compile(r"^look into\b"), "look into"),
    (re.compile(r"^revisit\b"), "revisit"),
    (re.compile(r"^find out\b"), "find out"),
    (re.compile(r"^investigate\b"), "investigate"),
]
_DO_VERBS = (
    "fix", "update", "write up", "write", "draft", "prepare", "review", "open", "schedule", "finish", "clean up",
    "rename", "deploy", "book", "benchmark", "document", "translate", "handle", "take care of", "set up", "run",
    "add", "implement", "refactor", "create", "migrate", "test", "build", "complete", "submit", "publish",
    "merge", "release", "upload", "install", "configure", "organize", "order", "share", "send", "ship",
    "tidy", "rewrite", "move", "delete", "remove", "backport", "patch", "file",
)
_DO = [(re.compile(rf"^{re.escape(verb)}\b"), verb) for verb in _DO_VERBS]
_MAKE_SURE = re.compile(r"^make sure (?:that )?\w+")
_LET_ME_FOLLOW_UP = ("follow up", "get back", "come back", "circle back", "check back", "report back", "look into")
_RECALL = re.compile(r"^(?:try to )?remember (?:where|what|when|how|who|whether|if)\b")
_REMEMBER_TO = re.compile(r"^remember to (\w+(?: \w+)?)")
_CONTENT = re.compile(r"^(?:remember|note)(?: that)? ((?:you|your|the|my|our|his|her|their|[a-z]+'s)\b.+)$")


def find(text: str) -> list[Promise]:
    """Every promise in ``text``, in order."""
    found = []
    for sentence in split(text):
        promise = read(sentence.text)
        if promise:
            found.append(Promise(sentence.text, promise[0], promise[1], _as_written(promise[2], sentence.text),
                                 sentence.end))
    return found


def _as_written(content: str, sentence: str) -> str:
    """The content in the sentence's own letters (patterns read it lower-cased)."""
    if not content:
        return ""
    pattern = r"\s+".join(re.escape(part) for part in content.split())
    match = re.search(pattern, sentence.replace("’", "'"), re.IGNORECASE)
    return match[0] if match else content


def read(sentence: str) -> tuple[str, str, str] | None:
    """(kind, verb, content) when the sentence is a promise, else None."""
    text = normal(sentence)
    if text.endswith("?"):
        return None
    text = _QUOTED.sub(" ", text)
    if _CONDITION.search(text):
        return None
    progressive = _PROGRESSIVE.search(text)
    if progressive:
        return _progressive(progressive[1], text)
    for frame in _FRAME.finditer(text):
        before, after = text[:frame.start()], text[frame.end():].strip(" ,")
        if _REPORTED.search(before) or _HEDGE_BEFORE.search(before):
            return None
        found = _action(after, let_me=frame[0] == "let me")
        if found:
            return found
    return None


def _progressive(gerund: str, text: str) -> tuple[str, str, str]:
    verb = {"saving": "save", "noting": "note", "committing": "commit", "pushing": "push",
            "recording": "record", "storing": "store", "logging": "log"}[gerund]
    return ("commit" if verb in ("commit", "push") else "save"), verb, ""


def _action(after: str, let_me: bool) -> tuple[str, str, str] | None:
    if _NEGATION.match(after) or _HEDGE_AFTER.match(after):
        return None
    after = _ADVERBS.sub("", after)
    if _NEGATION.match(after) or _HEDGE_AFTER.match(after):
        return None
    if let_me and (_RECALL.match(after) or re.match(r"^(?:note|remind \w+) that \w+ \w+", after)):
        return None
    remember_to = _REMEMBER_TO.match(after)
    if remember_to:
        inner = _match(remember_to[1], _FOLLOW_UP, "follow_up")
        return inner or ("save", "remember", "")
    for patterns, kind in ((_SAVE, "save"), (_COMMIT, "commit"), (_FOLLOW_UP, "follow_up")):
        found = _match(after, patterns, kind)
        if found:
            if let_me and kind == "follow_up" and found[1] not in _LET_ME_FOLLOW_UP:
                return None
            return found
    if let_me:
        return None  # "let me fix that": done in this very answer, not promised
    if _MAKE_SURE.match(after):
        return "do", "make sure", ""
    found = _match(after, _DO, "do")
    if found:
        return found
    for joined in re.finditer(r"\band (?:then )?", after):  # "I'll check if it is up and let you know"
        found = _action(after[joined.end():], let_me=False)
        if found:
            return found
    return None


def _match(after: str, patterns, kind: str) -> tuple[str, str, str] | None:
    for pattern, verb in patterns:
        found = pattern.match(after)
        if found:
            verb = found[0] if verb == "back" else verb or found[0].split()[0]
            content = ""
            if kind == "save":
                clause = _CONTENT.match(after)
                if clause and len(clause[1].split()) >= 3:
                    content = clause[1].rstrip(" .!")
            return kind, verb, content
    return None


# -- keeping ----------------------------------------------------------------------------

_IRREGULAR = {"write": "wrote|written", "write up": "wrote up|written up", "run": "ran", "send": "sent",
              "build": "built", "take care of": "took care of|taken care of", "set up": "set up",
              "find out": "found out", "get back": "got back|gotten back", "come back": "came back",
              "make sure": "made sure", "keep you posted": "kept you posted", "let you know": "let you know",
              "shut": "shut", "put": "put", "book": "booked", "ship": "shipped", "open": "opened"}
_KEPT_TOOL = {
    "save": re.compile(r"\bremember\b|\bmemories/|\bsave|\bnote\b", re.IGNORECASE),
    "commit": re.compile(r"\bgit\b[^\n]*\b(?:commit|push)\b|\bcommit\b", re.IGNORECASE),
}
_KEPT_FOLLOW_UP = re.compile(
    r"\b(?:as promised|following up|circling back|getting back to you|here(?:'s| is) (?:the|my) (?:update|follow-up)"
    r"|(?:followed|checked|circled|reported|got|came) (?:up|back)|looked into|found out)\b")
_ACTED_ON = ("look into", "investigate", "find out")
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\byet to|\bwill|'ll|\bgoing to|\bto)\s+(?:\w+\s+)?$")
_STOP = set("a an the that this it these those them to of for in on at by with and or my your our me you i we "
            "about up back next later tomorrow tonight today now soon week day after before also all".split())


def past(verb: str) -> str:
    """A regular expression for the verb's past forms ("fix" → "fixed")."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    head, _, rest = verb.partition(" ")
    if head.endswith("e"):
        form = head + "d"
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        form = head[:-1] + "ied"
    elif re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", head):
        form = head + head[-1] + "ed"
    else:
        form = head + "ed"
    return f"{form} {rest}".strip()


def keeps(kind: str, verb: str, sentence: str, text: str, tool_calls=(), same_turn: bool = False) -> bool:
    """Does ``text`` (a later answer, or the rest of the same one) keep this promise?

    Tool calls count as evidence: a git commit keeps a promise to commit, a remember
    call a promise to save; in the same turn, any tool call keeps a promise to do or to
    look into something ("I'll update the file" announcing the edit that follows).
    """
    tool = _KEPT_TOOL.get(kind)
    if tool and any(tool.search(call) for call in tool_calls):
        return True
    if same_turn and tool_calls and (kind == "do" or verb in _ACTED_ON):
        return True
    for said in split(text):
        line = normal(said.text)
        if line.endswith("?"):
            continue
        forms = {"commit": "committed|pushed", "save": "saved|noted|remembered|stored|recorded"}.get(kind) or past(verb)
        hits = list(re.finditer(rf"\b(?:{forms})\b", line))
        if kind == "follow_up":
            hits += list(_KEPT_FOLLOW_UP.finditer(line))
        for hit in hits:
            if not _NEGATED.search(line[:hit.start()]) and _same_object(sentence, verb, line):
                return True
    return False


def _same_object(sentence: str, verb: str, line: str) -> bool:
    """Share a content word with the promise's object, when the object has one."""
    promised = normal(sentence)
    at = promised.find(verb)
    rest = promised[at + len(verb):] if at >= 0 else promised
    wanted = {stem(w) for w in tokens(rest) if w not in _STOP and "'" not in w}
    return not wanted or bool(wanted & {stem(w) for w in tokens(line)})
