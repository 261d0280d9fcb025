"""People named in text: "Tomás", "Dr. Amara Okafor", "Inês's", "[[people/alice]]" — and not "As
promised", "Airflow", "Lisbon" or "Consider".

A capitalised run of words (Unicode letters, through the ``regex`` module: "Søren",
"Łukasz", "Jean-Paul", "O'Brien", "Nguyễn Văn An") is a person when one of these says so:

- a link to ``people/…`` (the alias, or the note's name) — always;
- a title before it (Dr., Mrs., Prof., Uncle, Aunt…);
- a name the memory already knows as a person (``known``);
- its first word is a given name — one of the ~24,000 first names, from 86 locales, that
  Faker ships (souveraine/language/data/, read by ``lexicon``) — and not one that is also
  an everyday word ("May", "Will", "Brain", "Said") unless something else says so;
- what surrounds it: a relation before it ("my neighbour", "met", "ask", "called"), or a
  person's verb after it ("said", "is my", "wants", "lent").

A possessive is not part of the name; a place or an organisation ("Mill Road", "the
Crown", "Rua da Prata", "Amsterdam" — GeoNames' countries and cities, by ``lexicon``) is not
a person, nor is a lone everyday word that is no one's given name ("Payroll runs"). A text with no capitalised word that could be a name costs a
scan with the standard library: neither ``regex`` nor the list of names is loaded.
"""

import re
from dataclasses import dataclass

from souveraine.language import patterns

_WORD = (r"\p{Lu}(?:[\p{Ll}\p{M}]+|(?=['’]\p{Lu}))(?:\p{Lu}[\p{Ll}\p{M}]+)?"
         r"(?:['’]\p{Lu}[\p{Ll}\p{M}]+|-\p{L}[\p{Ll}\p{M}]+)*")
_PARTICLE = r"(?:de|da|do|dos|das|du|van|von|der|den|la|le|bin|ibn|al|el|y|di|del|della|ter|ten|Văn|Thị)"
TITLES = ("dr", "dr.", "doctor", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "mx", "mx.", "prof", "prof.", "professor",
          "sir", "dame", "lady", "lord", "mme", "mme.", "madame", "mlle", "monsieur", "herr", "frau", "señor", "señora",
          "sr.", "sra.", "uncle", "aunt", "auntie", "grandma", "grandpa", "granny", "grandad", "cousin", "great-aunt",
          "great-uncle", "nana", "nonna", "abuela", "abuelo", "tante", "oncle", "dona", "dom", "senhor", "senhora",
          "don", "doña", "signora", "signor", "tia", "tio", "tío", "tía", "oma", "opa", "nonno", "avó", "avô")
# Given names that are also everyday words: a person only when something else says so.
AMBIGUOUS = frozenset("""
may will rose mark bill joy grace hope faith art jack frank sue pat rob bob dawn summer autumn june april august
sky iris ivy lily daisy amber ruby pearl olive hazel holly penny sandy sunny victor chase gene guy max ray rich
don drew earl miles neil page reed rusty sage skip wade ward dean lane hunter river storm honey angel star precious
jade crystal destiny harmony melody royal king prince duke baron justice liberty unique mercy patience charity
christian major marshal sterling bishop cash clay cliff dale glen heath moss forest stone wolf bear fox robin jay
wren lark dove florence paris london sydney jordan austin dallas phoenix georgia carolina virginia india china
kenya chelsea brooklyn devon camden lincoln orlando jersey tyrone adelaide hope long young brown white black green
gray grey price little wood hill field rich north west south east will worth per via can sim
""".split())
NOT_PEOPLE = frozenset("""
i i'm i've i'll i'd me my we you he she they it this that these those the a an and but or so then there here what when
where why how who yes no ok okay hello hi hey thanks thank dear monday tuesday wednesday thursday friday saturday
sunday january february march april may june july august september october november december christmas easter god
as consider random safe mild enjoy perfect great sure lovely noted please sorry good nice cool fine also just still
""".split())
_PLACE_AFTER = frozenset("""
street st road rd lane avenue ave way close drive square place park hall school college university hospital clinic
station airport bank church chapel café cafe bar pub inn hotel museum gallery library market centre center gardens
house office club team inc ltd llc co corp company group foundation institute council river bay beach island mountain
line lines motors motor garage cars bakery pharmacy restaurant bistro kitchen shop store stores mall cinema theatre
theater studio studios gym salon spa grill deli surgery supermarket airlines airways express times post news radio
""".split())
# A run after one of these is a work — a book, a film, a song, a game — not a person.
_WORK_BEFORE = frozenset("reading read reread watched watching rewatched streaming playing played listening humming".split())
# What a business or a place does, not a person: "Mercedes is closed on Sundays".
_SHUT = frozenset("closed open shut sold suspended".split())
# "Georgia from accounts", "Mark from work": someone of a place of work, school or home.
_FROM_GROUP = frozenset("""
work accounts hr it sales marketing legal finance support reception school church choir class upstairs downstairs
next the
""".split())

# A name that opens a sentence and is followed by one of these is a place more often than a person.
_PLACE_WORDS = frozenset({"in", "at", "on", "near", "by", "from", "to", "for", "airport", "station"})
# The first word of a street, a saint's place, a landmark or a foreign title ("Rua da Prata", "São
# Miguel", "St Chad's", "Le Petit Jardin"): the run names a place or a thing, not a person.
_PLACE_START = frozenset("""
rua avenida av praça largo travessa calçada estrada beco rue boulevard calle carrer plaza paseo piazza via viale
strasse straße platz são sao santa santo san sant saint st st. ste mount mt lake loch cape fort port porto
le la les el il lo los las
""".split())
# Before a place a person is rarely named: "in Braga", "from Bergen", "visiting Sofia".
_PLACE_BEFORE = frozenset("in at near around across through via from into outside towards visit visiting visited".split())
# ... and one followed by a subject pronoun opens a question ("Can you…", "Do we…"), not a name.
_PRONOUNS = frozenset({"i", "you", "we", "he", "she", "they", "it"})
_BEFORE = frozenset("""
met meet meeting told tell asked ask call called calling phone phoned email emailed text texted thank thanked
visit visited saw see invite invited named name by from for to and sister brother mother father mum mom dad wife
husband partner friend neighbour neighbor boss manager colleague son daughter aunt uncle cousin grandma grandpa
landlady landlord editor dentist doctor vet teacher cleaner plumber godfather godmother fiancé fiancée buddy
niece nephew grandson granddaughter stepson stepdaughter stepmother stepfather flatmate housemate roommate
classmate coworker co-worker assistant accountant lawyer therapist physio tutor coach mentor student pupil client
boyfriend girlfriend fiance ex mate
""".split())
_AFTER = frozenset("""
said says say told tells asked asks thinks thought wants wanted wrote writes called calls mentioned likes liked prefers
preferred suggested suggests agreed agrees replied replies loves loved hates hated feels felt promised promises
explained lent lends gave gives offered offers recommended recommends sent sends owes owed paid pays fixed fixes helped
helps invited invites reviewed reviewed disagreed sounded turns turned retires retired runs ran plays played got gets
is was has had will can can't cannot won't doesn't didn't and
""".split())


@dataclass(frozen=True)
class Person:
    name: str        # as written, without a title or a possessive: "Amara Okafor"
    start: int       # its offset in the text
    end: int
    how: str         # link | title | known | given name | context
    title: str = ""  # "Dr." when one came before it

    @property
    def shown(self) -> str:
        """The name with a professional title ("Dr. Amara Okafor"); family words are not kept."""
        keep = self.title and self.title.rstrip(".").casefold() in ("dr", "prof", "professor", "doctor")
        return f"{self.title} {self.name}" if keep else self.name


def people(text: str, known=()) -> list[Person]:
    """The people ``text`` names, in order; ``known`` are names (any case) already known as people."""
    known = {k.casefold() for k in known}
    if not _maybe(text, known):
        return []
    import regex

    from souveraine.language.sentences import mask_code

    found: list[Person] = []
    plain = text
    if "[[" in text:      # Obsidian's links, read by CommonMark (language.markdown): none in code
        from souveraine.language import markdown

        for link in markdown.links(text):
            if link.kind != "wiki":
                continue
            if link.target.startswith("people/") and link.target[7:].strip():
                name = (link.alias or link.target.rsplit("/", 1)[-1].replace("-", " ").title()).strip()
                found.append(Person(name, link.start, link.end, "link"))
            plain = plain[:link.start] + " " * (link.end - link.start) + plain[link.end:]
    plain = mask_code(plain, inline=True)
    run = regex.compile(rf"(?<![\p{{L}}\p{{M}}'’-])({_WORD}(?:\s+(?:{_PARTICLE}\s+)*{_WORD})*)(['’]s?)?(?![\p{{L}}\p{{M}}])")
    runs = list(run.finditer(plain))
    for match in runs:
        person = _judge(plain, match.start(1), match.end(1), known)
        if person:
            found.append(person)
    found += _coordinated(plain, runs, found)
    return sorted(found, key=lambda p: p.start)


_TOKEN = patterns.compile(r"[^\W\d_][\w'’.-]*")
_OPENERS = ".!?:;\n\"“(-—"


def _maybe(text: str, known: set[str]) -> bool:
    """Could ``text`` name anyone? False only when no word could start a person for ``people``: no
    link to people/, and every capitalised word is one that never names anyone, or opens a
    sentence alone with no title, relation, verb, known name or given name to make it one. The
    standard library's ``re`` alone, so most turns never load ``regex`` or the names."""
    if "[[" in text:
        return True
    tokens = list(_TOKEN.finditer(text))
    for n, match in enumerate(tokens):
        word = match[0].rstrip(".'’-")
        if not word[:1].isupper() or word.isupper() or word.casefold() in NOT_PEOPLE:
            continue
        head = text[:match.start()].rstrip()
        if head and head[-1] not in _OPENERS:
            return True                                         # inside a sentence
        after = tokens[n + 1] if n + 1 < len(tokens) else None
        if after is not None and not text[match.end():after.start()].strip(" \t") and \
                (after[0][:1].isupper() or after[0].casefold() in _PARTICLES):
            return True                                         # a run of words
        word = re.sub(r"['’]s?$", "", word)
        before, following = _words_before(text, match.start()), _words_after(text, match.start() + len(word))
        title = before and (before[-1].casefold() in TITLES or " ".join(before[-2:]).casefold() in TITLES)
        if title or word.casefold() in known or word.casefold() in TITLES or _context(before, following) or \
                _given(word) and not ambiguous(word):
            return True
    return False


_PARTICLES = frozenset(_PARTICLE[3:-1].casefold().split("|"))


def _coordinated(text: str, runs: list, found: list[Person]) -> list[Person]:
    """"Wen and Mei", "Tamsin …, Oona …": a one-word capitalised run joined by "and" or a comma to a
    person is a person too."""
    import regex

    spans = {(p.start, p.end) for p in found}
    more = []
    for match in runs:
        start, end = match.start(1), match.end(1)
        word = match[1]
        if (start, end) in spans or " " in word or word.casefold() in NOT_PEOPLE | AMBIGUOUS or \
                word.casefold() in TITLES or f"{word.casefold()}." in TITLES or _thing([word]) or _place(word, []):
            continue
        before = _words_before(text, start)
        if before and before[-1].casefold() in _PLACE_BEFORE | {"on", "by", "with", "for", "of"}:
            continue                                            # "in Dieppe and Odile", "in Portuguese, Inês's"
        for person in found:
            between = text[end:person.start] if end <= person.start else text[person.end:start]
            if regex.fullmatch(r"(?:['’]s)?\s*(?:,|and|&|,\s*and)\s*", between):
                more.append(Person(match[1], start, end, "context"))
                break
    return more


def _judge(text: str, start: int, end: int, known: set[str]) -> Person | None:
    words = text[start:end].split()
    before = _words_before(text, start)
    title = before[-1] if before and before[-1].casefold() in TITLES else ""
    opens = _opens(text, start) and not title
    if title and len(before) > 1 and f"{before[-2]} {before[-1]}".casefold() in TITLES:
        title = f"{before[-2]} {before[-1]}"
    while len(words) > 1 and words[0].casefold() in TITLES:          # "Uncle Femi", "Great-aunt Wilhelmina"
        title, words, start = words[0], words[1:], _next(text, start, words[0])
        before, opens = [*before, title], False
    while words and (words[0].casefold() in NOT_PEOPLE or                    # "As Tomás said", "The General"
                     len(words) > 1 and opens and not _given(words[0]) and words[0].casefold() not in known):
        before, start, words, opens = [*before, words[0]], _next(text, start, words[0]), words[1:], False
    if not words or len(words) == 1 and (words[0].casefold() in TITLES or f"{words[0].casefold()}." in TITLES):
        return None
    after = _words_after(text, start + len(" ".join(words)))
    # "Constance's house" is hers; "Joe's Bar" and "Mill Road" are places
    end = start + len(" ".join(words))
    owned = text[end:end + 1] in ("'", "’") and after and after[0][:1].islower()
    place = {w.casefold().strip(".,") for w in [words[-1], *([] if owned else after[:1])]} & _PLACE_AFTER
    if place and len(words) + len(after) > 1 or (before and before[-1].casefold() in ("the", "a", "an")):
        return None
    if before and before[-1].casefold() in _WORK_BEFORE or \
            len(after) > 1 and after[0].casefold() in ("is", "was", "'s") and after[1].casefold().strip(",.") in _SHUT or \
            after and after[0].casefold() in ("open", "closed", "shut"):
        return None
    name = " ".join(words)
    folded = name.casefold()
    how = None
    if title:
        how = "title"
    elif folded in known or words[0].casefold() in known:
        how = "known"
    elif len(words) > 1 and words[0].casefold() in _PLACE_START:
        return None
    elif _place(name, before):
        return None
    elif _given(words[0]) and (not ambiguous(words[0]) or len(words) > 1 and not opens):
        placed = opens and len(words) == 1 and after and after[0].casefold() in _PLACE_WORDS
        questioned = opens and len(words) == 1 and after and after[0].casefold() in _PRONOUNS
        how = None if placed and _place(name, ["in"]) or questioned else "given name"
    if how is None and _context(before, after) and not _thing(words):
        how = "context"
    if how is None:
        return None
    if how != "title" and all(w.casefold() in NOT_PEOPLE for w in words):
        return None
    return Person(name, start, start + len(name), how, title)


def _place(name: str, before: list[str]) -> bool:
    """Is ``name`` a place here: a country, a state or a city that is no one's given name, or
    one that is ("Florence", "Sofia") after "in", "from", "visiting"…, or a place of more than
    one word ("Santiago de Compostela")?"""
    from souveraine.language import lexicon

    if name not in lexicon.places():
        return False
    return " " in name or not _given(name.split()[0]) or bool(before) and before[-1].casefold() in _PLACE_BEFORE


def _thing(words: list[str]) -> bool:
    """A single everyday English word that is no one's given name ("Payroll runs", "Both offers",
    "Ceramics is my…"): what follows it cannot make it a person."""
    from souveraine.language import lexicon

    folded, everyday = words[0].casefold(), lexicon.english_words()
    return len(words) == 1 and not _given(words[0]) and \
        (folded in everyday or folded.endswith("s") and folded[:-1] in everyday)


def _next(text: str, start: int, word: str) -> int:
    """The offset of the word after ``word``, which begins at ``start``."""
    at = start + len(word)
    return at + len(text[at:]) - len(text[at:].lstrip())


def _words_before(text: str, start: int) -> list[str]:
    return text[max(0, start - 40):start].replace(",", " ").split()[-3:]


def _words_after(text: str, end: int) -> list[str]:
    return text[end:end + 40].replace("'s", " ").replace("’s", " ").split()[:2]


def _opens(text: str, start: int) -> bool:
    """Does the word at ``start`` open a sentence?"""
    head = text[:start].rstrip()
    return not head or head[-1] in ".!?:;\n\"“(-—"


def _context(before: list[str], after: list[str]) -> bool:
    if before and before[-1].casefold().strip(",") in _BEFORE - {"and", "to", "for", "by", "from"}:
        return True
    if after and after[0].casefold().strip(",.") in _AFTER - {"and", "is", "was", "has", "had", "will", "can"}:
        return True
    if len(after) > 1 and after[0].casefold() in ("and", "&") and after[1].casefold().strip(",.") in ("i", "me"):
        return True                                                 # "Ferran and I"
    if len(after) > 1 and after[0].casefold() == "from" and after[1].casefold().strip(",.") in _FROM_GROUP:
        return True                                                 # "Georgia from accounts"
    return len(after) > 1 and after[0].casefold() in ("is", "was") and after[1].casefold() in ("my", "our", "his", "her", "their")


def acts(word: str) -> bool:
    """Is ``word`` a person's verb after a name ("says", "told", "wants", "lent")?"""
    return word.casefold().strip(",.") in _AFTER - {"and", "is", "was", "has", "had", "will", "can"}


def is_given(word: str) -> bool:
    """Is ``word`` a given name in some locale ("Tomás", "Ngozi", and "Tomas" for "Tomás")?"""
    return _given(word)


def ambiguous(word: str) -> bool:
    """Is ``word`` a given name that is also an everyday word ("May", "Will", "Brain"), so a person
    only when something else says so?"""
    from souveraine.language import lexicon

    return word.casefold() in AMBIGUOUS or lexicon.is_given_word(word)


def _given(word: str) -> bool:
    from souveraine.language import lexicon

    if lexicon.is_given_name(word):
        return True
    import unicodedata

    bare = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    return bare != word and lexicon.is_given_name(bare)


def slug(name: str) -> str:
    """The file name a person's note gets: "Inês Álvares" → "ines-alvares"."""
    import re
    import unicodedata

    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return "-".join(re.findall(r"[a-z0-9]+", plain)[:6]) or "someone"
