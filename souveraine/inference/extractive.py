"""The extractive methods: deterministic text analysis used when no model is configured.

Nothing here guesses beyond the words: sentences are scored by how often their content
words recur, names are capitalised runs of words (and code-like terms), dates and
decisions and promises are matched by patterns. The same text always gives the same
result. docs/TEMPOS.md describes each method and its limits.
"""

import math
import re
from collections import Counter
from functools import lru_cache

TOKEN = re.compile(r"\w+(?:['’.\-]\w+)*")
_BACKTICK = re.compile(r"`([^`\n]{2,40})`")
_COMMON_ENDING = re.compile(r"(?:ly|ed|ing)$")
_CODE_TERM = re.compile(r"\b(?:[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]|[a-z]+[A-Z][A-Za-z0-9]*)\b")

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
DATE = re.compile(
    r"\b\d{4}-\d\d-\d\d\b"
    rf"|\b{_DAY}\s+(?:of\s+)?{_MONTH}\.?(?:,?\s+\d{{4}})?\b"
    rf"|\b{_MONTH}\.?\s+{_DAY}(?:,?\s+\d{{4}})?\b"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
    r"|\b(?:(?:on|by|next|this|last|until|before)\s+)?(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
    r"|\b(?:today|tomorrow|tonight|yesterday|next (?:week|month|year)|this weekend|end of the (?:week|month|year))\b"
    rf"|\b(?:in|by|since|until|from|early|late|mid)[\s-]+{_MONTH}(?:\s+\d{{4}})?\b"
    r"|\b(?:in|by|since|until) (?:19|20)\d\d\b",
    re.IGNORECASE,
)
DECISION = re.compile(
    r"\b(?:we|i|they|you)\s+(?:have\s+|'ve\s+|’ve\s+)?(?:decided|agreed|chose|chosen|settled|resolved|concluded|opted)\b"
    r"|\b(?:decision|decided|agreed|verdict)\s*[:—–]"
    r"|\blet['’]?s\s+(?:go\s+with|use|keep|stick\s+with|settle\s+on|pick|choose|adopt|switch\s+to|drop)\b"
    r"|\b(?:we|i)(?:['’]ll|\s+will|\s+are\s+going\s+to|['’]re\s+going\s+to)\s+(?:go\s+with|stick\s+with|adopt|switch\s+to|standardi[sz]e\s+on)\b"
    r"|\b(?:going|go)\s+forward\s+with\b|\bthe\s+plan\s+is\b|\bfrom\s+now\s+on\b",
    re.IGNORECASE,
)
PROMISE = re.compile(
    r"\b(?:i|we)(?:['’]ll|\s+will|\s+shall|\s+promise|\s+am\s+going\s+to|['’]m\s+going\s+to|\s+are\s+going\s+to|['’]re\s+going\s+to|\s+owe)\b"
    r"|\bpromise[sd]?\b|\bremind\s+(?:me|you|us)\b|\b(?:i|we)\s+commit\s+to\b|\bwill\s+get\s+back\s+to\b",
    re.IGNORECASE,
)
INTENSE = frozenset("""
urgent urgently critical crucial vital important never always must love loved hate hated afraid scared
terrified worried anxious angry furious upset sorry terrible awful horrible amazing wonderful incredible
desperate desperately help panic disaster lost broke broken crash crashed failed failure deadline
cry crying tears died death dead hurt pain sick thrilled excited proud ashamed fear frightened
finally unbelievable shocked heartbroken grateful furious emergency
""".split())
FEELINGS = frozenset("""
relieved terrified scared afraid worried anxious nervous frightened furious angry upset sad heartbroken devastated
grateful excited thrilled proud ashamed overwhelmed exhausted lonely happy miserable shaking cried crying tears panic
hurt failure guilty jealous desperate burning burnt sober forgave forgive hate hated love loved
""".split())
_TURN = re.compile(
    r"\b(?:decided|decision|agreed|chose|chosen|settled|picked|scrap|cancel(?:l?ed|l?ing)?|change\s+of\s+plan|"
    r"changed\s+my\s+mind|from\s+now\s+on|no\s+more|going\s+with|stopped|quit|handed\s+in|said\s+(?:no|yes)|"
    r"can't\s+believe|cannot\s+believe|unbelievable|turns\s+out|turned\s+out|plot\s+twist|surprise|shocking|"
    r"after\s+all|realised|realized|didn't\s+expect|did\s+not\s+expect|big\s+news|breaking|oh\s+no|fell\s+through|"
    r"fired|pregnant|died|dead|passed|engaged|wedding|divorce|splitting\s+up|moving|adopting|promotion|funeral|"
    r"cancer|diagnos\w*|rejected|refused|lost|accepted|booked|finished|happening|the\s+first\s+time|for\s+a\s+year|"
    r"never\s+forget|in\s+years|i\s+can't\s+do\s+this|broke\s+up|breaking\s+up|dropp(?:ed|ing)\s+out|quitting|"
    r"finally|never\s+thought|(?:it's|it\s+is|we're)\s+over|all\s+along|i\s+was\s+wrong|first\s+day|last\s+day|"
    r"day\s+one|(?:breathe|smile|sleep)\s+again|for\s+good|gave\s+(?:the\s+job|it)\s+to|got\s+the\s+(?:job|grant|place))\b",
    re.IGNORECASE)
_ACKNOWLEDGED = re.compile(
    r"^\W*(?:(?:yes|yeah|yep|no|nope|ok(?:ay)?|sure|fine|right|great|perfect|lovely|cool|nice|noted|agreed|alright|"
    r"thanks?(?:\s+(?:so\s+much|a\s+lot|you|again))*|thank\s+you(?:\s+so\s+much)?|cheers|glad|love|sounds|got|good|"
    r"awesome|interesting|haha|ha|fair|true|bye|hello|hi|hey|you're\s+welcome|no\s+problem|will\s+do|one\s+moment|"
    r"makes\s+sense|that\s+works|go\s+ahead|of\s+course|please|happy|congratulations|congrats|you\s+too|"
    r"any\s+time|my\s+pleasure|well\s+done)\b[\s,.!]*)+"
    r"(?:\w+[\s,.!']*){0,4}$", re.IGNORECASE)
STOP = frozenset("""
a an the and but or nor if so yet because since after before while as at by for from in into of on onto
to with without about above below over under between through during against among per via than then
i i'm i've i'll i'd me my mine myself we we're we've we'll we'd us our ours you you're you've you'll
you'd your yours he he's him his she she's her hers it it's its they they're they've they'll them their
this that these those there there's here here's what what's which who who's whom whose why how when where
is are was were be been being am do does did done doing have has had having can could will would shall
should may might must not no yes don't didn't doesn't can't won't isn't aren't wasn't weren't shouldn't
let let's please thanks thank sorry hi hello hey dear oh ah wow hmm ok okay sure fine great good nice cool
right well now also just still even only very too really actually honestly basically maybe perhaps
first second third next last finally however therefore meanwhile otherwise instead indeed anyway besides
all some any every each both either neither none one two three many much more most few other another
such same own new old today tomorrow tonight yesterday always never often sometimes usually again already
almost soon later early note remember see look make take give tell say ask try use keep check read write
send call add need want like think know guess agreed true false sounds looks seems got get go going
done ready exactly absolutely definitely certainly glad happy alright whatever though although unless
until till whether nothing something everything anything someone everyone anyone nobody
understood perfect excellent lovely awesome interesting yeah yep nope correct noted gotcha brilliant
wonderful amazing welcome bye goodbye cheers congratulations morning evening afternoon night
""".split())
PARTICLES = frozenset({"de", "du", "da", "di", "del", "della", "van", "von", "der", "den", "le", "la", "of", "y", "bin", "al"})
NOT_NAMES = frozenset({*STOP, *INTENSE, *WEEKDAYS, *MONTHS, *(d + "s" for d in WEEKDAYS), "mon", "tue", "wed", "thu", "fri", "sat", "sun",
                       "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
                       "am", "pm", "todo", "ps", "re", "fyi", "btw", "eg", "ie", "etc",
                       "dr", "mr", "mrs", "ms", "mx", "prof", "st", "sr", "jr",
                       # how people text: "Tbh kinda done", "Lol listen to me"
                       "tbh", "lol", "ugh", "omg", "lmao", "idk", "imo", "imho", "smh", "ngl", "tho", "pls", "plz",
                       "thx", "ty", "np", "rn", "ikr", "brb", "afaik", "wtf", "ffs", "yay", "yikes", "meh", "ooh",
                       "aww", "argh", "phew", "oops", "whoa", "welp", "gonna", "wanna", "kinda", "gotta"})
_QUOTES = "\"“„«‘'"


def prose(text: str) -> str:
    """The text without fenced code, with wikilinks read as their words (``language.markdown``)."""
    if "```" not in text and "~~~" not in text and "[[" not in text:
        return text
    from souveraine.language import markdown

    return markdown.shown(markdown.without_code(text, indented=False),
                          lambda l: (l.alias or l.target.rsplit("/", 1)[-1]) if l.kind == "wiki" else None)


def sentences(text: str) -> list[str]:
    """Sentences of prose (``language.sentences``), one list item or heading or line at most per sentence."""
    from souveraine.language.sentences import texts

    return [part for part in texts(prose(text)) if TOKEN.search(part)]


def words(text: str) -> set[str]:
    """Every word of the text, casefolded (two characters or more): a vocabulary."""
    found = set()
    for token in TOKEN.findall(text):
        for part in _parts(token.casefold()):
            if len(part) > 1:
                found.add(part)
    return found


def _parts(token: str) -> list[str]:
    # A hyphenated or dotted token is known when its whole and its pieces are.
    pieces = re.split(r"['’.\-]", token)
    return [token] + pieces if len(pieces) > 1 else [token]


def content_words(text: str) -> list[str]:
    return [w for w in (t.casefold() for t in TOKEN.findall(text)) if len(w) > 2 and w not in STOP and not w.isdigit()]


def lowercase_words(text: str) -> set[str]:
    """Words the text uses in lower case: evidence that a capitalised one is not a name."""
    return {t for t in TOKEN.findall(text) if t.islower()}


def names(text: str, lowercase: set[str] | frozenset = frozenset()) -> list[str]:
    """Names and terms, in order of first appearance: capitalised runs of words, acronyms,
    `code` spans, snake_case and camelCase. A capitalised word opening a sentence counts only
    when it is capitalised inside a sentence too, or is no common word: not a stop word, not
    used in lower case (here or in ``lowercase``), not ending like an adverb or a participle."""
    found: dict[str, None] = {}
    plain = prose(text)
    for term in _BACKTICK.findall(plain):
        found.setdefault(term.strip(), None)
    said = _BACKTICK.sub(" ", plain)
    split = sentences(said)
    inner = {m[0] for s in split for m in list(TOKEN.finditer(s))[1:]
             if m[0][:1].isupper() and s[:m.start()].rstrip()[-1:] not in _QUOTES}
    common = _Common(lowercase, lowercase_words(said), inner)
    for sentence in split:
        if _shouted(sentence):       # "THE GRANT IS DUE FRIDAY": capitals that say nothing of names
            continue
        for run in _capitalised_runs(sentence, common):
            found.setdefault(run, None)
        for term in _CODE_TERM.findall(sentence):
            found.setdefault(term, None)
    return list(found)


def _shouted(sentence: str) -> bool:
    said = [t for t in TOKEN.findall(sentence) if t.isalpha()]
    loud = [t for t in said if len(t) > 1 and t.isupper()]
    return len(loud) >= 3 and len(loud) >= 0.6 * len(said)


class _Common:
    """The words used in lower case (here or in ``lowercase``) and never capitalised inside a
    sentence; asked word by word, because ``lowercase`` can be a whole window's vocabulary."""

    __slots__ = ("lowercase", "here", "inner")

    def __init__(self, lowercase, here: set[str], inner: set[str]):
        self.lowercase, self.here, self.inner = lowercase, here, inner

    def __contains__(self, word: str) -> bool:
        return (word in self.here or word in self.lowercase) and word.capitalize() not in self.inner


def _capitalised_runs(sentence: str, seen_lower: set[str], openers: bool = True) -> list[str]:
    runs, run, last_end = [], [], None
    matches = list(TOKEN.finditer(sentence))
    for i, match in enumerate(matches):
        token = re.sub(r"['’]s$", "", match[0])
        joined = last_end is not None and sentence[last_end:match.start()] == " "
        if run and not joined:
            runs.append(run)
            run = []
        after = matches[i + 1][0] if i + 1 < len(matches) else ""
        # A word after an opening quote opens what is quoted ('add "Buy boxes"'); a first word
        # before a colon is a label ("Standup:", "Update:") unless it is someone's name.
        before = sentence[last_end if last_end is not None else 0:match.start()]
        opens = i == 0 or (bool(before) and before.rstrip()[-1:] in _QUOTES)
        label = i == 0 and sentence[match.end():match.end() + 1] == ":" and not _given(token)
        if not label and _is_name_word(token, opens, seen_lower, after) and (openers or i > 0):
            run.append(token)
        elif run and token in PARTICLES and _name_follows(matches, i + 1, seen_lower):
            run.append(token)
        elif run:
            runs.append(run)
            run = []
        last_end = match.end()
    if run:
        runs.append(run)
    return [" ".join(r) for r in runs]


def _lettered(token: str) -> bool:
    """A letter joined to an everyday word: "X-ray", "T-shirt", "U-turn" — words, not names."""
    parts = token.split("-")
    if len(parts) < 2 or not any(len(p) == 1 for p in parts):
        return False
    from souveraine.language import lexicon

    return all(len(p) == 1 or p.casefold() in lexicon.english_words() for p in parts)


def _given(token: str) -> bool:
    from souveraine.language import names

    return names.is_given(token)


def _name_follows(matches: list, start: int, seen_lower: set[str]) -> bool:
    for match in matches[start:]:
        if match[0] not in PARTICLES:
            return _is_name_word(match[0], False, seen_lower)
    return False


def _is_name_word(token: str, opens: bool, seen_lower: set[str], after: str = "") -> bool:
    if not token[:1].isupper() or len(token) < 2:
        return False
    folded = token.casefold()
    if folded in NOT_NAMES or folded.split("'")[0].split("’")[0] in NOT_NAMES:
        return False
    if token.isupper():
        return len(token) <= 5 or not token.isalpha()   # longer capitals are shouting
    if _lettered(token):
        return False
    if not opens:
        return True
    # A capital that opens a sentence proves little: the word is a name when it is also
    # capitalised inside a sentence, or is a given name that is no everyday word, or is no
    # word in use — not in lower case here, not English's common words, not ending in -ly, -ed, -ing.
    inner = getattr(seen_lower, "inner", None)
    if inner is not None and token in inner and folded not in seen_lower:
        return True
    from souveraine.language import names

    if names.is_given(token):       # "Octave says…" names someone; "Will we…" does not
        return not names.ambiguous(token) or names.acts(after)
    from souveraine.language import lexicon

    english = lexicon.english_words()
    # "Hand-tighten it first": a compound of everyday words opening a sentence is no name either.
    compound = "-" in folded and all(part in english or part in seen_lower for part in folded.split("-"))
    return not (folded in seen_lower or _COMMON_ENDING.search(folded) or folded in english or compound)


def significant(name: str) -> list[str]:
    """The casefolded words of a name that identify it (particles like "de" or "of" do not)."""
    return [w for w in (t.casefold() for t in TOKEN.findall(name)) if w not in PARTICLES]


def distinct(found: list[str], known: set[str] | frozenset = frozenset()) -> list[str]:
    """Names that say something new: "Marguerite" adds nothing after "Marguerite Duras", nor
    any name whose every word is ``known``."""
    kept, said = [], set()
    for name in found:
        words = significant(name)
        if any(w not in known and w not in said for w in words):
            kept.append(name)
            said.update(words)
    return kept


def dates(text: str) -> list[str]:
    return list(dict.fromkeys(m[0] for m in DATE.finditer(prose(text))))


def is_decision(sentence: str) -> bool:
    return DECISION.search(sentence) is not None


def is_promise(sentence: str) -> bool:
    return PROMISE.search(sentence) is not None


def kind(sentence: str) -> str:
    """What a sentence carries, the weightiest first: decision, promise, date or essence."""
    if is_decision(sentence):
        return "decision"
    if is_promise(sentence):
        return "promise"
    if DATE.search(sentence):
        return "date"
    return "essence"


def intensity(text: str) -> float:
    """How hard a text presses: exclamations, questions, capitals, emphasis, charged words.
    Normalised by length, so a long calm turn does not outweigh a short cry."""
    plain = prose(text)
    tokens = TOKEN.findall(plain)
    if not tokens:
        return 0.0
    raw = (plain.count("!") + 0.3 * plain.count("?") + plain.count("**") / 2
           + 0.5 * sum(1 for t in tokens if len(t) > 2 and t.isupper() and t.isalpha())
           + 1.5 * sum(1 for t in tokens if t.casefold() in INTENSE))
    return raw / math.sqrt(1 + len(tokens) / 20)


def turning(text: str) -> float:
    """How much a turn turns things: feelings, decisions, surprises and the events of a life,
    with the pressure of ``intensity``. Thanks and acknowledgements ("Yes please.", "Glad
    they help.", "Love it.", "Happy you like it!", "Congratulations!") turn nothing, however
    warmly they are said: the turn they answer holds the peak."""
    plain = prose(text)
    if _ACKNOWLEDGED.match(plain):
        return 0.0
    tokens = [t.casefold() for t in TOKEN.findall(plain)]
    if not tokens:
        return 0.0
    from souveraine.language import lexicon

    strong = lexicon.feelings()
    raw = (plain.count("!") + 0.3 * plain.count("?") + plain.count("**") / 2
           + 0.5 * sum(1 for t in TOKEN.findall(plain) if len(t) > 2 and t.isupper() and t.isalpha())
           + 1.5 * sum(1 for t in tokens if t in FEELINGS)
           + 1.0 * sum(1 for t in tokens if t in strong and t not in FEELINGS)
           + 1.2 * len(_TURN.findall(plain)))
    if plain.rstrip().endswith("?") and not any(t in FEELINGS for t in tokens):
        raw *= 0.3
    return raw / math.sqrt(1 + len(tokens) / 30)


def frequencies(texts) -> Counter:
    counts: Counter = Counter()
    for text in texts:
        counts.update(set(content_words(text)))
    return counts


def score(sentence: str, freq: Counter) -> float:
    """Luhn's measure: the mean frequency of its content words, short fragments discounted,
    names and figures counted as signal."""
    content = content_words(sentence)
    if not content:
        return 0.0
    base = sum(freq[w] for w in content) / len(content)
    length = min(1.0, len(content) / 6)
    signal = 0.5 * len(_capitalised_runs(sentence, set(), openers=False)) + 0.25 * len(re.findall(r"\d+", sentence))
    return base * length + signal


def clip(text: str, limit: int = 240) -> str:
    """One line of at most ``limit`` characters, cut at a word."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0] + "…"
