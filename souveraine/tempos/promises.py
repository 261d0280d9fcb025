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
from datetime import datetime

from souveraine.language import speech
from souveraine.language.sentences import split
from souveraine.language.words import normal, spoken, stem, tokens
from souveraine.language.patterns import lazy

KINDS = ("save", "commit", "follow_up", "do")


@dataclass(frozen=True)
class Promise:
    sentence: str      # the sentence as the assistant wrote it
    kind: str          # save | commit | follow_up | do
    verb: str          # the action's verb, for recognising it kept later ("fix" → "fixed")
    content: str = ""  # what to remember, when the sentence says it ("remember that X")
    end: int = 0       # offset in the text just after the sentence
    claimed: bool = False   # said as done ("I've saved that"), which the subconscious makes true
    due: object = None      # a language.dates.Mention: when it falls due, if the sentence says
    start: int = 0

    def to_dict(self) -> dict:
        data = {"sentence": self.sentence, "kind": self.kind, "verb": self.verb, "content": self.content}
        if self.claimed:
            data["claimed"] = True
        if self.due is not None:
            data["due"] = self.due.to_dict()
        return data


# -- the frame: who commits, and how ----------------------------------------------------

_QUOTED = lazy(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")

_FRAME = lazy(r"\b(?:i|we)(?:'ll| will| shall)\b|\bi(?:'m| am) (?:going|gonna|about) to\b|\bwe(?:'re| are) going to\b"
                    r"|\bi (?:promise|intend|plan) to\b|\blet me\b|^(?:i'm |im )?gonna\b|^(?:(?:ok(?:ay)?|sure|yes|yep|yup|yeah|right|alright|got it|on it|"
                    r"understood|will do|noted|thanks|sounds good|no problem)[,.!:;— -]+)*will\b")
_PROGRESSIVE = lazy(r"(?:\bi(?:'m| am) (?:now |just |also )?|^|[,;:—-] *)(saving|noting|committing|pushing|recording|"
                          r"storing|logging|adding|filing|putting|writing|jotting|making|taking)"
                          r" (?:that|this|it|these|those|your|a note|a mental note|note|notes)\b(.*)")
_ELLIPTIC = lazy(
    r"^(?:(?:ok(?:ay)?|sure|right|alright|got it|understood|thanks|great|good (?:point|call|to know)|perfect)[,.!:;— -]+)*"
    r"(?:(?:duly |well )?noted\b(?! that)(?! in \w+ (?:on|back|last))|consider it (?:noted|remembered|saved|filed)\b"
    r"|mental note (?:made|taken)\b|filing (?:that|this|it) (?:away|under)\b|(?:keeping|holding) (?:that|this|it) in mind\b)")
_CONSIDER_DONE = lazy(r"^(?:(?:ok(?:ay)?|sure|right)[,.!— -]+)*(?:consider it (?:done|handled|sorted)|leave it with me)\b")
_ADVERBS = lazy(r"^(?:(?:also|now|just|then|first|next|definitely|certainly|quickly|still|gladly|happily|"
                      r"go ahead and|make sure to|make sure i|be sure to|personally|happily|gladly)\s+)+")
_NEGATION = lazy(r"^(?:not|never|n't)\b")
_HEDGE_AFTER = lazy(r"^(?:probably|maybe|perhaps|possibly|try to|try and|see|think|consider|hopefully)\b")
_HEDGE_BEFORE = lazy(r"\b(?:maybe|perhaps|possibly|hopefully|not sure|wonder whether|wonder if|doubt|hope|might)\b")
_REPORTED = lazy(r"\b(?:said|say|says|told \w+|promised|claims?|claimed|mentioned|wrote|agreed|asked|reads)\b[^,;:]*$")
_CONDITION = lazy(r"\b(?:unless|should you|in case|provided that|whenever you|once you|say the word|as soon as you)\b"
                        r"|(?<!\bcheck )(?<!\bsee )(?<!\bfind out )(?<!\bknow )(?<!\bask )(?<!\bverify )(?<!\btest )"
                        r"(?<!\bwhether )(?<!\btell you )(?<!\blet you know )(?<!\bping you )\bif\b")

# -- the action: what is promised -------------------------------------------------------

_MEMORY_PLACE = (r"(?:memory|memories|notes?|journal|preferences|profile|learnings(?: file)?|knowledge base|records?|log|"
                 r"contacts?(?: note)?|reading list|file|list)")
_OBJECT = r"(?:that|this|it|these|those|them|your [\w' -]+?|the [\w' -]+?|[\w'-]+)"
_SAVE = [
    (lazy(rf"^commit {_OBJECT}? ?to memory\b"), "save"),
    (lazy(r"^(?:save|memori[sz]e|bookmark|jot|log|store|record|stash)\b"), "save"),
    (lazy(r"^remember\b(?! it myself)"), "remember"),
    (lazy(r"^note\b"), "note"),
    (lazy(r"^write (?:[\w' -]+ )?down\b|^write (?:that|this|it) (?:down|in)\b|^write it into\b"), "write down"),
    (lazy(r"^(?:keep|bear) (?:that |this |it |them )?in mind\b"), "keep in mind"),
    (lazy(r"^keep (?:a (?:\w+ )?(?:note|record)|track)\b|^(?:make|take) (?:a (?:\w+ )?)?notes? (?:of )?"), "note"),
    (lazy(r"^file (?:that|this|it) (?:away|under)\b|^file (?:it|this|that)\b"), "file away"),
    (lazy(r"^hold on to\b|^hang on to\b|^keep (?:that|this|it) on file\b"
                r"|^keep (?:that|this|it) (?:in|with) (?:the|my|your) (?:[\w-]+ )?notes?\b"), "keep"),
    (lazy(rf"^(?:add|put|stash) .*\b(?:to|in|into|with|under) (?:my|your|the|our|what i know)\b"
                rf"(?:[\w' -]+ )?(?:{_MEMORY_PLACE})?"), "add"),
    (lazy(r"^make sure (?:that )?.*\b(?:gets|is) (?:saved|noted|remembered|stored|in your profile)\b"
                r"|^make sure (?:that(?:'s| is)|it's) in your (?:profile|notes|memory)\b"), "save"),
]
_COMMIT = [
    (lazy(r"^(?:commit|push|squash)\b"), None),
    (lazy(r"^make a commit\b"), "commit"),
    (lazy(r"^tag the release\b"), "tag"),
]
_FOLLOW_UP = [
    (lazy(r"^follow up\b"), "follow up"),
    (lazy(r"^(?:get|come|circle|check|report) back\b"), "back"),
    (lazy(r"^check (?:in|on|with|whether|if)\b|^(?:double|triple)[- ]check\b"), "check"),
    (lazy(r"^remind\b"), "remind"),
    (lazy(r"^nudge\b"), "nudge"),
    (lazy(r"^chase\b"), "chase"),
    (lazy(r"^(?:ping|email|message|text|call) (?:you|him|her|them|\w+)\b"), None),
    (lazy(r"^send you\b"), "send"),
    (lazy(r"^give you a heads[- ]up\b"), "heads-up"),
    (lazy(r"^let you know\b"), "let you know"),
    (lazy(r"^tell you\b[^,;]{0,24}?\b(?:if|when|whether|once|where|what (?:i find|he says|she says|they say|"
                r"comes back))\b"), "tell"),
    (lazy(r"^keep (?:you )?(?:posted|updated|informed|in the loop)\b|^keep you (?:posted|updated)"), "keep you posted"),
    (lazy(r"^keep (?:an eye on|watching|track of the|tabs on)\b"), "keep an eye on"),
    (lazy(r"^monitor\b|^watch\b"), "monitor"),
    (lazy(r"^update you\b"), "update"),
    (lazy(r"^look (?:into|up)\b|^dig (?:into|through)\b"), "look into"),
    (lazy(r"^revisit\b"), "revisit"),
    (lazy(r"^revert to you\b"), "revert"),
    (lazy(r"^find out\b"), "find out"),
    (lazy(r"^research\b"), "research"),
    (lazy(r"^investigate\b"), "investigate"),
    (lazy(r"^see what i can find\b"), "find out"),
]
_DO_VERBS = (
    "fix", "update", "write up", "write", "draft", "prepare", "review", "open", "schedule", "finish", "clean up",
    "rename", "deploy", "book", "benchmark", "document", "translate", "handle", "take care of", "set up", "run",
    "add", "implement", "refactor", "create", "migrate", "test", "build", "complete", "submit", "publish",
    "merge", "release", "upload", "install", "configure", "organize", "organise", "order", "share", "send", "ship",
    "tidy", "rewrite", "move", "delete", "remove", "backport", "patch", "file", "sort out", "sort", "put",
    "flag", "get", "have", "redo", "redraft", "convert", "compile", "draw up", "work out", "knock together",
    "plan", "restructure", "go through", "make", "set", "outline", "put together", "look at", "have a look", "arrange",
)
_DO = [(lazy(rf"^{re.escape(verb)}\b"), verb) for verb in _DO_VERBS]
_MAKE_SURE = lazy(r"^make sure (?:that )?\w+")
_LET_ME_FOLLOW_UP = ("follow up", "get back", "come back", "circle back", "check back", "report back", "look into")
_LET_ME_DO = ("sort out", "sort")
_RECALL = lazy(r"^(?:try to )?remember (?:where|what|when|how|who|whether|if)\b")
_REMEMBER_TO = lazy(r"^remember to (\w+(?: \w+)?)")
_CONTENT = lazy(r"^(?:remember|note)(?: that)? ((?:you|your|the|my|our|his|her|their|[\w]+'s)\b.+)$")
_CONTENT_COLON = lazy(r"(?:(?<!\d):|:(?!\d)|—)\s*(.{6,})$")

# -- claims: said as already saved --------------------------------------------------------

_SAVED = r"(?:saved|noted|recorded|stored|logged|remembered|memori[sz]ed|added|put|filed|jotted|written|kept)"
_CLAIM_I = lazy(
    r"(?:^|[,;:!.—-] *)(?:i've|i have|i)\s+(?:just |now |also |already )?(?P<verb>saved|noted|recorded|stored|logged|"
    r"remembered|memori[sz]ed|added|put|filed|updated|corrected|fixed|made a note|written|jotted|kept|made)\b(?P<rest>.*)")
_CLAIM_HEAD = lazy(
    rf"^(?:(?:ok(?:ay)?|done|thanks|got it|right)[,.!:;— -]+)*(?:(?:got it|noted),? and )?(?P<verb>{_SAVED}|memorised"
    rf"|updated (?:the |my |your )?(?:memory|notes?)|(?:fixed|updated|corrected) in (?:(?:your|my|the) \w+|memory)|noted down|noted in your \w+|added to (?:my|your|the) \w+)"
    rf"(?: (?:it|that|this))?(?: (?:to|under|in|as) [^:!—]*)?\s*(?:[:!—–]|\.$|\. )(?P<rest>.*)")
_CLAIM_THAT = lazy(
    r"^(?:(?:ok(?:ay)?|done|thanks|got it|right)[,.!:;— -]+)*(?:i've |i have )?(?P<verb>noted|recorded|remembered|"
    r"made a note|logged|saved|stored|written down)(?: down)? that (?!(?:as|to|in|into|for|under|away|down|too|"
    r"with)\b)(?P<rest>.+)")
_CLAIM_LABELLED = lazy(
    rf"^(?:(?:ok(?:ay)?|done|thanks|got it|right)[,.!:;— -]+)*(?:i've |i have )?(?P<verb>{_SAVED}) (?:the|your|a|an|my) "
    r"[^:]{1,48}:\s*(?P<rest>.+)")
_INTERJECTION = r"^(?:(?:ok(?:ay)?|done|thanks|got it|right|sure|great|perfect|understood|noted)[,.!:;— -]+)*"
_CLAIM_BARE = lazy(
    _INTERJECTION + r"(?P<verb>saved|noted|stored|logged|recorded|remembered|memori[sz]ed|filed|updated|added|put|"
    r"jotted down|wrote down|corrected|fixed) (?P<rest>(?:the|your|my|it|that|this|those|these)\b.*)")
_CLAIM_TAIL = lazy(
    r"^(?P<subject>[^.!?:—–]{2,60}?)\s*(?:[—–-]\s*|:\s*)?(?P<verb>saved|noted|stored|logged|recorded|remembered|"
    r"memori[sz]ed|filed|updated|corrected|added)(?: (?:as|to|in|into|under)\b[^.!?:—–]{0,40}?)?"
    r"\s*(?:[:!✔✓✅☑👍—–]|\.(?:\s|$)|$)\s*(?P<rest>.*)")
_CLAIM_HAVE_IT = lazy(r"(?:^|[,;:!.—-] *)i(?:'ve| have)(?: got)? (?:it|that|this|them) (?P<verb>noted|saved|stored|"
                      r"written down|jotted down|down|on file|in (?:your|my) notes)\b(?P<rest>.*)")
_CLAIM_GOT_DOWN = lazy(r"(?:^|[,;:!.—-] *)(?:i've |i have |i )?(?P<verb>got) (?P<rest>(?:that|it|this|[\w'’ ]{1,40}?)"
                             r" down\b.*)")
_CLAIM_BARE_PLACE = lazy(
    _INTERJECTION + r"(?P<verb>added|put|saved|stored|filed|logged|noted|jotted down|written down) "
    rf"(?P<rest>[^.!?]{{2,80}}?\b(?:to|in|into|under|on) (?:your|my|the|our) (?:[\w-]+ ){{0,2}}{_MEMORY_PLACE}\b.*)")
_CLAIM_NOUN = lazy(
    r"^(?:(?:ok(?:ay)?|done|thanks)[,.!:;— -]+)*(?:decision|preference|convention|rule|contact|noted)\s+"
    rf"(?P<verb>{_SAVED})\b\s*[:.!—–]?\s*(?P<rest>.*)")
_CLAIM_PASSIVE = lazy(
    rf"\b(?:is|are|has been|have been|'s)(?: now)? (?P<verb>saved|recorded|stored|noted|logged|in memory|in (?:your|my|the) "
    rf"(?:[\w-]+ )?(?:notes?|memory|profile|contacts?(?: note)?|conventions?(?: file)?|preferences|do-nots|"
    rf"learnings))\b(?P<rest>.*)")
_CLAIM_PLACE = lazy(rf"\b(?:{_MEMORY_PLACE}|convention|rule|preference|profile|as (?:a|an|the|your) \w+)\b")
_NOT_MEMORY = lazy(r"^\s*(?:the |your |my )?(?:file|document|doc|draft|spreadsheet|changes?|work|page|image|photo"
                         r"|game|receipts?|migration|fix|commit)\b")
_PAST_TIME = lazy(r"\b(?:already|yesterday|ago|back in|last (?:week|month|time|year)|(?:earlier|before)(?=\s*(?:[.,;:!?)]|$))|"
                        r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:january|february|march|"
                        r"april|may|june|july|august|september|october|november|december))\b")


_OBJECT_WORDS = lazy(r"\s*(?:(?:that|it|this|them|those|down)\s+){0,2}")
_PARTICIPLE = lazy(r"\b(?:saved|noted|stored|logged|recorded|remembered|memori[sz]ed|filed)\b")
_NOT_NOW = lazy(r"(?:\b(?:will|would|can|could|shall|should|to|be|might|may|not|never|didn't|haven't|hasn't|won't|"
                r"wasn't|weren't|was|were|had|if|when|once)|n't)\s+(?:\w+\s+)?$")
_OTHER_ACTOR = lazy(r"\b(?:he|she|they|it|you|[a-z]+ (?:app|server|system|backup|form|bot|site|editor|university|builder|"
                    r"doctor|bank|phone|browser|teacher|contractor|manager))\s+(?:just |already |also |then )?$")
_OBJECT_AFTER = lazy(r"^\s*(?:it|them|him|her|the|a|an|his|their|this|that|\d|automatically|itself|every|at \d)")


def _claim_loose(text: str) -> tuple[str, str] | None:
    """Any "saved", "noted", "stored"… that reports this turn's own saving: not modal, not negated,
    not someone else's act on an object, not a past event."""
    for match in _PARTICIPLE.finditer(text):
        before, after = text[:match.start()], text[match.end():]
        if _NOT_NOW.search(before) or _OTHER_ACTOR.search(before):
            continue
        words = re.findall(r"\w+", before)
        starts = not words or re.fullmatch(r"(?:ok(?:ay)?|done|thanks|got|it|right|sure|great|perfect|and|i|i've|"
                                           r"we|we've|have|just|now|also|all)", words[-1])
        if not starts and _OBJECT_AFTER.match(after):
            continue   # "the server logged the error": someone else's act
        if _NOT_MEMORY.match(after) or re.search(r"\b(?:draft|file|pdf|document|photos?|game|progress)\s*$", before):
            continue
        subject = re.sub(_INTERJECTION, "", before).strip(" ,;:—–-(")
        if len(subject.split()) >= 2:
            return match[0], subject
        said = after.strip(" ,;:—–-()")
        return match[0], "" if re.match(r"(?:for|to|in|into|under|as|with|away|down|on file)\b", said) else said
    return None


def claim(sentence: str) -> tuple[str, str] | None:
    """(verb, content) when the sentence says a thing has been saved just now, else None.

    "I've saved that as a convention", "Saved: Zé da Mouraria, 218 865 436", "Decision
    recorded". Not a claim: a question, a negation, someone else's saving, a file saved,
    a save dated in the past ("I noted it back in June").
    """
    text = spoken(speech.unquote(sentence))
    if text.endswith("?") or speech.is_hypothetical(sentence):
        return None
    for pattern in (_CLAIM_THAT, _CLAIM_LABELLED, _CLAIM_HEAD, _CLAIM_NOUN, _CLAIM_I, _CLAIM_BARE, _CLAIM_BARE_PLACE,
                    _CLAIM_HAVE_IT, _CLAIM_GOT_DOWN, _CLAIM_PASSIVE, _CLAIM_TAIL):
        match = pattern.search(text)
        if not match:
            continue
        before = text[:match.start()]
        said = text[:match.start("rest")] + re.split(r"(?<!\d):|:(?!\d)|—| that ", match["rest"])[0]
        if pattern not in (_CLAIM_THAT, _CLAIM_HEAD, _CLAIM_LABELLED) and _PAST_TIME.search(said) or \
                _PAST_TIME.search(before):
            return None
        if match["verb"] == "remembered" and re.match(r"\s*to\b", match["rest"]):
            return None
        if _PAST_TIME.match(match["rest"], len(_OBJECT_WORDS.match(match["rest"])[0])) or \
                _PAST_TIME.search(match["rest"]) and len(match["rest"].split()) <= 3:
            return None
        if pattern is _CLAIM_PASSIVE and re.search(r"\b(?:in plain|by default|automatically|as plain|every)\b",
                                                   match["rest"]):
            return None
        if re.search(r"\b(?:not|never|didn't|haven't|hasn't|won't|n't)\b", text[:match.end("verb")]):
            return None
        rest = match["rest"]
        down = re.match(r"\s*(?:that|it|this|them|those)? ?down\b", rest)     # "I've written that down"
        if pattern is _CLAIM_I and (_NOT_MEMORY.match(rest) or not (_CLAIM_PLACE.search(rest) or down or
                                    match["verb"] in ("noted", "recorded", "remembered", "memorised", "memorized",
                                                      "made a note", "logged", "stored", "saved"))):
            return None
        if pattern is _CLAIM_I and match["verb"] in ("updated", "corrected", "fixed", "added", "put", "written",
                                                     "kept", "made") and not _CLAIM_PLACE.search(rest) and not down:
            return None
        if pattern is _CLAIM_HAVE_IT and re.search(r"\b(?:draft|file|document|doc|spreadsheet|email|code)\b", rest):
            return None
        if pattern is _CLAIM_PASSIVE and re.search(r"\b(?:file|document|game|spreadsheet)\b", before):
            return None
        if pattern is _CLAIM_BARE and (_NOT_MEMORY.match(rest) or match["verb"] in ("updated", "added", "put",
                                                                                   "corrected", "fixed")
                                       and not _CLAIM_PLACE.search(rest)):
            return None
        if pattern is _CLAIM_TAIL and (re.match(r"^(?:he|she|they|it|the (?:app|server|system|backup|form|bot|site)|"
                                                r"i|we|you)\b", match["subject"].strip())
                                       or re.search(r"\b(?:will|would|can|could|should|to|be|not|never|was|were|"
                                                    r"been)\s*$",
                                                    match["subject"])):
            return None
        if pattern is _CLAIM_GOT_DOWN and not (_CLAIM_PLACE.search(rest) or re.match(r"(?:that|it|this) down", rest)):
            return None
        if pattern is _CLAIM_I and not re.match(r"[,;:!.—-]", match[0]) and \
                re.search(r"\b(?:he|she|they|it|marta|\w+ said)\b\s*$", before):
            return None
        if pattern is _CLAIM_TAIL:
            subject = match["subject"].strip(" -—–")
            if re.fullmatch(rf"(?:the |your |my )?(?:{_MEMORY_PLACE}|profile|preferences|conventions)", subject):
                subject = ""                                     # "Memory updated ✅ X": X is the fact
            content = " ".join(part for part in (subject, rest.strip()) if part)
        else:
            content = match["rest"].strip() if pattern in (_CLAIM_THAT, _CLAIM_LABELLED) else _claim_content(sentence, rest)
        return match["verb"].split()[0], _fact_words(content, sentence)
    loose = _claim_loose(text) if not _PAST_TIME.search(text) else None
    if loose:
        return loose[0], _fact_words(loose[1], sentence)
    return None


_NO_FACT = lazy(r"^(?:(?:ok(?:ay)?|done|thanks|got it|right|sure|great|perfect|understood|all|all set|yes|and|it|"
                r"that|this)[,.!:;— -]*)+$")


def _fact_words(content: str, sentence: str) -> str:
    """What a claim says it kept, as the sentence writes it: no marks around it ("✅", "—"), and
    nothing when it is only an acknowledgement ("got it", "all")."""
    content = re.sub(r"^[^\w\"'(]+|[^\w)\"'%€$£]+$", "", content.strip())
    content = content[len(re.match(_INTERJECTION, normal(content))[0]):] if normal(content) == content.lower() else content
    if not content or _NO_FACT.match(normal(content)) or re.match(rf"{_SAVED}\b", normal(content)) or \
            re.fullmatch(r"(?:in|to|into|under|on|as) (?:your|my|the|a|an)\b[^,:]*", normal(content)):
        return ""
    return _as_written(content, sentence)


def _claim_content(sentence: str, rest: str) -> str:
    colon = _CONTENT_COLON.search(sentence)
    if colon and not _CLAIM_I.search(normal(colon[1])):      # "I'll stick to it — I've saved it as…"
        return colon[1].strip().rstrip(".")
    that = re.search(r"\b(?:that|:)\s+(.{6,})$", sentence)
    if that and re.search(r"\b(?:noted|recorded|remembered|made a note|note)\b", normal(sentence[:that.start()])):
        return that[1].strip().rstrip(".")
    return ""


def find(text: str, now: datetime | None = None, context: str | None = None) -> list[Promise]:
    """Every promise in ``text``, in order; with ``now``, each dated promise's due time.

    ``context`` (the message answered) anchors "I'll remind you the day before".
    """
    found = []
    for sentence in split(text):
        promise, claimed = read(sentence.text), False
        said = claim(sentence.text) if not promise or promise[0] == "save" else None
        if said:
            promise, claimed = ("save", said[0], said[1]), True
        if promise:
            due = _due(text, sentence, now, context) if now is not None and not claimed else None
            found.append(Promise(sentence.text, promise[0], promise[1], _as_written(promise[2], sentence.text),
                                 sentence.end, claimed, due, sentence.start))
    return found


def _due(text: str, sentence, now: datetime, context: str | None):
    """The promise's due time: a date said in its sentence, the one nearest after its frame first."""
    from souveraine.language import dates

    before = text[:sentence.start]
    mentions = [m for m in dates.find(before + sentence.text, now, context=context) if m.start >= sentence.start]
    mentions = [m for m in mentions if m.ends > now.replace(tzinfo=None, second=0, microsecond=0)]
    if not mentions:
        return None
    frame = _FRAME.search(normal(sentence.text))
    at = sentence.start + (frame.start() if frame else 0)
    after = [m for m in mentions if m.start >= at]
    return (after or mentions)[0]


def _as_written(content: str, sentence: str) -> str:
    """The content in the sentence's own letters (patterns read it lower-cased)."""
    if not content:
        return ""
    pattern = r"\s+".join(re.escape(part) for part in content.split())
    match = re.search(pattern, sentence.replace("’", "'"), re.IGNORECASE)
    return match[0] if match else content


def read(sentence: str) -> tuple[str, str, str] | None:
    """(kind, verb, content) when the sentence is a promise, else None."""
    text = spoken(sentence)
    if text.endswith("?"):
        return None
    text = normal(_QUOTED.sub(" ", text))
    text = re.sub(r"\b((?:tell you|let you know|ping you|update you)\b[^,;]{0,24}?) if\b", r"\1 whether", text)
    if _CONDITION.search(text):
        return None
    progressive = _PROGRESSIVE.search(text)
    if progressive and not _REPORTED.search(text[:progressive.start()]):
        found = _progressive(progressive[1], progressive[0], progressive[2])
        if found:
            return found
    for frame in _FRAME.finditer(text):
        before, after = text[:frame.start()], text[frame.end():].strip(" ,")
        if _REPORTED.search(before) or _HEDGE_BEFORE.search(before) or re.search(r"\b(?:if|once(?! more)|when)\b[^,;]*$", before):
            return None
        found = _action(after, let_me=frame[0] == "let me")
        if found:
            return found
    if _ELLIPTIC.search(text):
        return "save", "note", ""
    if _CONSIDER_DONE.search(text):
        return "do", "do", ""
    return None


_GERUNDS = {"saving": "save", "noting": "note", "committing": "commit", "pushing": "push", "recording": "record",
            "storing": "store", "logging": "log", "adding": "add", "filing": "file away", "putting": "add",
            "writing": "write down", "jotting": "write down", "making": "note", "taking": "note"}


def _progressive(gerund: str, said: str, rest: str) -> tuple[str, str, str] | None:
    verb = _GERUNDS[gerund]
    if verb in ("commit", "push"):
        return "commit", verb, ""
    if gerund in ("adding", "putting", "filing") and not re.search(
            rf"\b(?:to|in|into|under|with|away)\b.*\b(?:{_MEMORY_PLACE}|profile|preferences|notes)\b|\baway\b|under\b", rest):
        return None
    if gerund in ("writing", "jotting") and not re.search(r"\bdown\b|\binto\b", rest):
        return None
    if gerund in ("making", "taking") and "note" not in said:
        return None
    return "save", verb, ""


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
                break
            return found
    if let_me:
        found = _match(after, _DO, "do")
        if found and found[1] in _LET_ME_DO and re.search(r"\b(?:by|tomorrow|later|tonight|after)\b", after):
            return found
        for joined in re.finditer(r"\band (?:then )?", after):   # "let me dig into this and circle back"
            found = _action(after[joined.end():], let_me=True)
            if found:
                return found
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
    "save": lazy(r"\bremember\b|\bmemories/|\bsave|\bnote\b", re.IGNORECASE),
    "commit": lazy(r"\bgit\b[^\n]*\b(?:commit|push)\b|\bcommit\b", re.IGNORECASE),
}
_KEPT_FOLLOW_UP = lazy(
    r"\b(?:as promised|following up|circling back|getting back to you|here(?:'s| is) (?:the|my) (?:update|follow-up)"
    r"|(?:followed|checked|circled|reported|got|came) (?:up|back)|looked into|found out)\b")
_ACTED_ON = ("look into", "investigate", "find out")
_NEGATED = lazy(r"(?:\bnot|n't|\bnever|\byet to|\bwill|'ll|\bgoing to|\bto)\s+(?:\w+\s+)?$")
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
