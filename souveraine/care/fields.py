"""Recurring fields: what the journal keeps coming back to across days — gardening, the user's
job, a language being learned — for the digest's domains/ notes.

A field is a word's lemma ("garden" for "gardening", "gardens"; simplemma) or two content
words side by side ("night shift", "care home"), said on several days. A day counts once,
however often the word came up that day: a field recurs, it is not one long talk. Never a
field: a person's name (``language.names``, and the people the memory knows), a capitalised
word that is no everyday English word (a name or a place), one of the two hundred commonest
English words (Zipf ≥ 5.7: "time", "work", "home"), a stop word, a month or a day, a family
word ("mama", "family"), a word never used as a noun (never plural, never after "the",
"my"…: "twice", "forty"). People name their fields with common words ("the book", "my
course", "the team"): those are fields too, but only where a determiner shows them nouns,
as their "-s" is as often a verb's ("feels", "talks"). The rarer a word is in English, the
more its recurrence says: a field's weight is its number of days times 1 to 2, by how far
below the thousand commonest words its frequency lies (1 for a word no list knows: a
foreign word's rarity says nothing).
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

MIN_DAYS = 3          # a field recurs on three days at least…
MIN_SHARE = 0.08      # …and on this share of the days the turns span
MOST = 3
MIN_NOMINAL = 2       # used as a noun twice at least
COMMON = 5.7          # the two hundred commonest English words (Zipf ≥ 5.7: "time", "work", "home") name no field
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# Words of talk about talk, feelings and plans, frequent in any conversation but no field of one's own.
_CHAT = frozenset("""
thing things stuff okay sure sorry thanks please maybe really honestly actually basically literally
lol haha yeah yes nope hello bye message messages question questions answer answers idea ideas plan plans
news update week weekend today tomorrow yesterday tonight morning evening afternoon night minute minutes
hour hours moment later soon bit lot kind sort place places tired happy glad worried nervous scared proud
excited funny weird lovely perfect great good nice fine bad hard easy little small big long short
""".split())


# Family and address words: people, not fields ("mama", "grandmother").
_KIN = frozenset("""
mum mom mama mami mother dad papa baba father parents grandmother grandfather grandma grandpa granny nana
grandad granddad grandparents family aunt auntie uncle cousin cousins wife husband son daughter sister brother
kids children grandchildren grandson granddaughter nephew niece fiancé fiancée boyfriend girlfriend partner
""".split())
# A word after one of these is used as a noun: "the shop", "my bike", "our new oven".
_DETERMINERS = frozenset("the a an my our your his her their this that these those some any no every each".split())


@dataclass
class Field:
    key: str                     # the lemma, or two lemmas
    forms: dict[str, int] = field(default_factory=dict)   # each form as written (lower case), how often
    days: set[date] = field(default_factory=set)
    nominal: int = 0             # uses as a noun: plural, -ing, after "the", "my"…, in a phrase
    determined: int = 0          # uses as the head of a phrase after "the", "my"…: "the course", "my new bike"
    weight: float = 0.0

    @property
    def name(self) -> str:
        """The form said most ("cycling" over "cycle"), the first said on a tie."""
        return max(self.forms, key=lambda form: self.forms[form])


def recurring(turns, people: set[str] = frozenset(), most: int = MOST) -> list[Field]:
    """The fields ``turns`` keep returning to, the weightiest first; ``people`` are names (any
    case) known as people, never fields."""
    spanned = {t.day for t in turns}
    if not spanned:
        return []
    floor = max(MIN_DAYS, MIN_SHARE * len(spanned))
    found: dict[str, Field] = {}
    for turn in turns:
        for key, form, nominal, determined in _terms(turn.text, frozenset(p.casefold() for p in people)):
            term = found.setdefault(key, Field(key))
            term.forms[form] = term.forms.get(form, 0) + 1
            term.days.add(turn.day)
            term.nominal += nominal
            term.determined += determined
    fields = [f for f in found.values() if len(f.days) >= floor and _noun(f)]
    for f in fields:
        f.weight = len(f.days) * _rarity(f)
    chosen: list[Field] = []
    for f in sorted(fields, key=lambda f: (-f.weight, f.key)):
        if not any(_covers(c, f) for c in chosen):
            chosen.append(f)
        if len(chosen) == most:
            break
    return chosen


def _noun(f: Field) -> bool:
    """Used as a noun twice at least. A common word ("course", "book", "feel") shows it only
    after "the", "my"…: its "-s" is as often a verb's ("feels", "talks")."""
    from souveraine.language import lexicon

    common = any(lexicon.everyday(w) for w in f.key.split())
    return (f.determined if common and " " not in f.key else f.nominal) >= MIN_NOMINAL


def _rarity(f: Field) -> float:
    """1 for a word as common as everyday ones, up to 2 for a rare one; 1 for a word no list
    knows (a foreign word, a typo, a nickname: its rarity says nothing of a field)."""
    from souveraine.language import lexicon

    zipfs = [lexicon.zipf(w) for w in f.key.split()]
    if not all(zipfs) and not all(w in lexicon.english_words() for w in f.key.split()):
        return 1.0
    zipf = min(z for z in zipfs if z) if any(zipfs) else 0.0
    return 1.0 + min(1.0, max(0.0, (lexicon.EVERYDAY - zipf) / 2.5))


def _covers(chosen: Field, other: Field) -> bool:
    """A phrase holds a word said on few more days than it ("night shift", "shift"); and the other way."""
    a, b = set(chosen.key.split()), set(other.key.split())
    return (a < b or b < a) and len(other.days) <= 1.5 * len(chosen.days)


def _terms(text: str, people: frozenset[str]) -> list[tuple[str, str, bool, bool]]:
    """(lemma, form, used as a noun, the head of a phrase after a determiner) of each field word
    of ``text``, and of each pair of them side by side."""
    from souveraine.inference import extractive
    from souveraine.language import names

    plain = extractive.prose(text)
    named = {w.casefold() for p in names.people(plain) for w in _WORD.findall(p.name)}
    out, previous, before = [], None, ("", "", "")    # the two words before this one, and this one
    for match in _WORD.finditer(plain):
        word = match[0]
        form = word.casefold().replace("’", "'")
        opens = not plain[:match.start()].strip() or plain[:match.start()].rstrip()[-1] in ".!?:\n-*#>\"“"
        lemma = None if word[:1].isupper() and not opens else _candidate(word, form, named | people)
        before = (before[1], before[2], form)
        if lemma is None:
            previous = None
            continue
        determined = before[1] in _DETERMINERS or before[0] in _DETERMINERS and before[1] not in extractive.STOP
        nominal = form != lemma and form.endswith("s") or form.endswith("ing") or determined
        out.append((lemma, form, nominal, determined))
        if previous is not None and plain[previous[2]:match.start()] == " ":
            out.append((f"{previous[0]} {lemma}", f"{previous[1]} {form}", True, True))
        previous = (lemma, form, match.end())
    return out


def _candidate(word: str, form: str, people: set[str]) -> str | None:
    from souveraine.inference import extractive
    from souveraine.language import lexicon

    if len(form) < 4 or form in extractive.STOP or form in _CHAT or form in people or "'" in form:
        return None
    english = form in lexicon.english_words()
    if not english and (word[:1].isupper() or _named(form)):
        return None                       # a name, a place, a brand — capitalised or texted ("malik", "berlin")
    if form in _KIN:
        return None
    lemma = _lemma(form)
    if (lemma in extractive.STOP or lemma in _CHAT or lemma in people or len(lemma) < 4
            or lemma in extractive.WEEKDAYS or lemma in extractive.MONTHS
            or lexicon.zipf(lemma) >= COMMON or lexicon.zipf(form) >= COMMON):
        return None
    return lemma


def _named(form: str) -> bool:
    from souveraine.language import lexicon, names

    return names.is_given(form.capitalize()) or form.capitalize() in lexicon.places()


@lru_cache(maxsize=65536)
def _lemma(form: str) -> str:
    import simplemma

    return simplemma.lemmatize(form, lang="en").casefold()
