"""reflect (N+25): the witness. It reads the transcript since the last witness and appends
one entry to the journal, role ``reflection``, with four elements, each citing its turns:

- the Fold: where intensity vibrated;
- the Chain: what linked across turns;
- the Flame: what was named for the first time (names and terms the memory never held);
- the Anchor: what held steady.

It witnesses; it does not correct. With an endpoint configured, a local model writes the
Fold, the Chain and the Anchor from the prompt below; the Flame is always a check of the
words against what the memory held (tempos.vocabulary), which no model can know.
"""

import re
from dataclasses import dataclass, field

from souveraine.inference import client as inference
from souveraine.inference import extractive, guard
from souveraine.language import names
from souveraine.store import clock, journal
from souveraine.store.journal import Turn
from souveraine.store.memory import Memory
from souveraine.sync import own
from souveraine.tempos import vocabulary

ROLE = "reflection"
SPOKEN = ("user", "assistant")
ELEMENTS = ("fold", "chain", "flame", "anchor")
TITLES = {
    "fold": "**The Fold**, where intensity vibrated:",
    "chain": "**The Chain**, what linked across turns:",
    "flame": "**The Flame**, what was named for the first time:",
    "anchor": "**The Anchor**, what held steady:",
}
# Sent to the model with the transcript; each turn is shown as "[^block-id · time · role] text".
SYSTEM_PROMPT = """You are the witness of a conversation between a person and an AI agent. \
You witness; you do not correct, judge, advise or summarise the facts. Write exactly three \
sections, each a heading line followed by one to three short bullet points:
The Fold — where intensity vibrated (emotion, urgency, a turn that pressed harder).
The Chain — what linked across turns (a thread one turn picked up from another).
The Anchor — what held steady throughout.
End every bullet with the block ids of the turns it speaks of, written like ^t143205u4a1f. \
Use only block ids that appear in the transcript."""
USER_PROMPT = "The transcript since the last witness:\n\n{transcript}"
FOLD_AT = 1.0            # a turn turning this much (extractive.turning) is a turning point
TURN_CHARS = 1500        # each turn shown to the model is cut to this
TRANSCRIPT_CHARS = 24_000  # the newest turns that fit are shown


@dataclass
class Witness:
    turns: list[Turn]
    method: str            # "extractive", or the model's name
    fold: list[str] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    flame: list[tuple[str, Turn]] = field(default_factory=list)
    anchor: list[str] = field(default_factory=list)
    refusal: str | None = None     # why a model's witness was not used, said once in the inner voice

    def render(self) -> str:
        first, last = self.turns[0], self.turns[-1]
        lines = [f"The witness of {len(self.turns)} turns, {first.link} to {last.link}.", ""]
        flame = [f"*{name}* ({turn.link})" for name, turn in self.flame] or ["nothing was named for the first time"]
        for element, items in zip(ELEMENTS, (self.fold, self.chain, flame, self.anchor)):
            lines += [TITLES[element], *(f"- {item}" for item in items), ""]
        how = "the extractive method" if self.method == "extractive" else f"the model {self.method}"
        lines.append(f"_Witnessed by {how}; a witness does not correct._")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"turns": len(self.turns), "method": self.method, "fold": self.fold, "chain": self.chain,
                "flame": [name for name, _ in self.flame], "anchor": self.anchor,
                **({"refused": self.refusal} if self.refusal else {})}


def due(memory: Memory) -> bool:
    """Reflection is on and ``message_interval`` messages came since the last witness."""
    from souveraine.tempos.counters import since_witness

    section = memory.config["reflection"]
    return section["enabled"] and since_witness(memory) >= section["message_interval"]


def window(memory: Memory) -> tuple[list[Turn], Turn | None]:
    """The turns no witness saw, oldest first, and the newest witness (None before the first);
    tempos.counters.unwitnessed says exactly which, and so the counts agree. Once the memory
    syncs, this device's own since its own last witness (sync.own)."""
    from souveraine.tempos.counters import unwitnessed

    mine = own.window(memory)
    return unwitnessed(memory) if mine is None else mine


def run(memory: Memory, *, force: bool = False, change=None, extractive_only: bool = False) -> dict:
    """Witness the turns since the last witness, if due (or ``force``), and append the entry.

    Inside a caller's ``change`` the entry is added to it; otherwise it is committed as
    ``chore(reflect): …``. A model that fails raises InferenceError before anything is written.
    """
    section = memory.config["reflection"]
    if not section["enabled"]:
        return {"reflected": False, "reason": "reflection is off ([reflection] enabled = false in souveraine.toml)"}
    turns, last = window(memory)
    spoken = [t for t in turns if t.role in SPOKEN]
    if not spoken:
        return {"reflected": False, "reason": "nothing to witness: no turns since the last witness", "messages": 0}
    if not force and len(spoken) < section["message_interval"]:
        return {"reflected": False, "messages": len(spoken),
                "reason": f"not due: {len(spoken)} of {section['message_interval']} messages since the last witness"}
    endpoint = None if extractive_only else inference.endpoint_for(memory.config, "reflection")
    seen = witness(spoken, vocabulary.held_before(memory, last), endpoint)
    at = clock.now().replace(microsecond=0)
    message = f"chore(reflect): witness {len(spoken)} turns through {spoken[-1].day} {spoken[-1].at:%H:%M}"
    if change is not None:
        entry = _append(memory, change, at, seen)
        return {"reflected": True, **entry, **seen.to_dict()}
    with memory.change(message) as own:
        # Witnessed without the lock (a model may take its time): checked again under it.
        newest = window(memory)[1]
        if (newest and newest.block_id) != (last and last.block_id):
            from souveraine.errors import Refused

            raise Refused("another witness was written while this one was composed; nothing was written — "
                          "run 'souveraine reflect' again", code="reflect_raced")
        entry = _append(memory, own, at, seen)
    return {"reflected": True, **entry, **seen.to_dict(), "commit": own.sha}


def witness(turns: list[Turn], held: set[str], endpoint: inference.Endpoint | None = None) -> Witness:
    """The four elements for ``turns``; ``held`` is the vocabulary the memory had before them."""
    refusal = None
    if endpoint is not None:
        written, refusal = _ask_model(turns, endpoint)
        if written:
            seen = Witness(turns, endpoint.model, *written[:2], anchor=written[2])
            seen.flame = flame(turns, held)
            return seen
    seen = Witness(turns, "extractive", fold(turns), chain(turns), refusal=refusal)
    seen.anchor = anchor(turns, held, exclude=set(_terms_of(seen.chain)))
    seen.flame = flame(turns, held)
    return seen


def fold(turns: list[Turn], most: int = 3) -> list[str]:
    """The turning points: the turns that carried a feeling, a decision or a surprise, at most three."""
    rated = [(extractive.turning(t.text), i, t) for i, t in enumerate(turns)]
    peaks = sorted((r for r in rated if r[0] >= FOLD_AT), key=lambda r: (-r[0], r[1]))[:most]
    if not peaks:
        longest = max(turns, key=lambda t: len(t.text))
        return [f"no turn rose above an even pitch; the fullest was {longest.role}'s, {longest.link}"]
    lines = []
    for _, _, turn in sorted(peaks, key=lambda r: r[1]):
        sentence = max(extractive.sentences(turn.text) or [turn.text], key=extractive.turning)
        lines.append(f"“{extractive.clip(sentence, 160)}”, said the {turn.role} ({turn.link})")
    return lines


def chain(turns: list[Turn], most: int = 3) -> list[str]:
    """Terms taken up from one turn by another, the most travelled first (across speakers first)."""
    linked = [term for term in terms(turns) if len(term.turns) > 1]
    def weight(term):
        crossed = len({turns[i].role for i in term.turns}) > 1
        return (-(crossed + len(term.turns) + 2 * term.is_name), term.turns[0])
    lines = []
    for term in sorted(linked, key=weight)[:most]:
        links = " → ".join(turns[i].link for i in term.turns[:4])
        more = f" and {len(term.turns) - 4} more" if len(term.turns) > 4 else ""
        lines.append(f"*{term.shown}*: {links}{more}")
    return lines or [f"no term passed from one turn to another; each stood alone, from {turns[0].link} to {turns[-1].link}"]


def anchor(turns: list[Turn], held: set[str], exclude: set[str] = frozenset(), most: int = 2) -> list[str]:
    """What held: a person, a project, a goal — a name or a topic said in two turns or more,
    far enough apart to span a third of the window. What held *through* the window is said in
    its first third and again in its last: that alone makes a topic of a noun, however
    everyday ("the move", "school"); elsewhere a topic is a rarer word (never one of the
    thousand commonest English words, nor a month or a day) that both speakers kept to or that
    came back three times. Candidates rank by how they recur — held through, in how many parts
    of the window, taken up by the other speaker — and by their role (a person, a name, what
    the memory already held), the number of turns only last. A single exchange holds nothing."""
    if len(turns) < ANCHOR_TURNS:
        return [f"no person, project or topic ran through it; it was one exchange, {turns[0].link} to {turns[-1].link}"]
    from souveraine.language import lexicon

    reach = len(turns) / 3
    named = {p.name.casefold() for t in turns for p in names.people(t.text)}

    def parts(term):
        return {3 * i // len(turns) for i in term.turns}

    def through(term):
        return {0, 2} <= parts(term)

    def crossed(term):
        return len({turns[i].role for i in term.turns}) > 1

    def rare(term):
        return term.is_name or " " in term.key or not any(lexicon.everyday(w) for w in (term.key, term.shown))

    def steady(term):
        if len(term.turns) < 2 or term.turns[-1] - term.turns[0] < reach:
            return False
        if term.is_name:
            return True
        if not term.nominal or len(term.key) <= 3 or term.key in GENERIC or term.shown in CALENDAR:
            return False
        return rare(term) and (crossed(term) or len(term.turns) >= 3 or through(term)) or through(term) and term.nominal > 1

    def weight(term):
        known = extractive.words(term.key) <= held
        person = term.key in named or term.shown.casefold() in named or term.key.startswith("kin:")
        role = 2 * person + term.is_name + known
        return (term.key in exclude, -(2 * through(term) + len(parts(term)) + crossed(term) + role + rare(term)),
                -len(term.turns), term.turns[0])
    ranked = sorted(filter(steady, terms(turns)), key=weight)
    # An everyday word beside a rarer topic frames it ("the plan" for the move, "the middle" of the novel).
    ranked = ranked[:1] + [t for t in ranked[1:] if rare(t) or not any(rare(o) and not o.is_name for o in ranked[:most])]
    lines = [f"*{term.shown}*, from {turns[term.turns[0]].link} to {turns[term.turns[-1]].link}, in {len(term.turns)} turns"
             for term in ranked[:most]]
    return lines or [f"no person, project or topic ran through it; it began at {turns[0].link} and ended at {turns[-1].link}"]


ANCHOR_TURNS = 4         # fewer turns than this are one exchange: nothing held through them
GENERIC = frozenset("""
thing things time times today tomorrow yesterday week weeks month months year years something anything everything
nothing people person message messages book books question questions answer answers point points idea ideas way ways
part parts place places work working stuff number numbers problem problems issue issues matter case kind sort lot
little bit while moment morning evening night minute minutes hour hours second seconds really actually maybe though
about would could should there their these those which where thanks thank sorry great right think thought going
""".split())
CALENDAR = frozenset({*extractive.WEEKDAYS, *extractive.MONTHS, *(d + "s" for d in extractive.WEEKDAYS)})


def flame(turns: list[Turn], held: set[str]) -> list[tuple[str, Turn]]:
    """Names and terms no earlier journal or note held, each with the turn that first said it.
    A parent called by name ("Mam", "Gran") is no new name; nor is a name's plural ("Omegas"
    after "Omega") or a shouted everyday word ("WAIT thats it??")."""
    from souveraine.language import lexicon

    lowercase = set().union(*(extractive.lowercase_words(t.text) for t in turns))
    first: dict[str, Turn] = {}
    for turn in turns:
        for name in extractive.names(turn.text, lowercase):
            folded = name.casefold()
            if folded in KIN or name.isupper() and len(name) > 3 and lexicon.everyday(folded):
                continue
            if name.endswith("s") and name[:-1] in first:
                continue
            first.setdefault(name, turn)
    return [(name, first[name]) for name in extractive.distinct(list(first), held)]


@dataclass
class Term:
    key: str
    shown: str
    is_name: bool
    turns: list[int] = field(default_factory=list)
    nominal: int = 0          # used as a noun somewhere: 2 after "the", "my"…; 1 plural, -ing, in a phrase


def terms(turns: list[Turn]) -> list[Term]:
    """Each term (a name, or a content word of four letters or more) and the turns that hold it.
    A name said again shorter or fuller ("Professor Hartmann", "Hartmann"; "Zeynep", "Zeynep
    Arslan") is one term, titles aside, and so is its lower-case form where people text it;
    a word is one term in all its forms ("hen", "hens")."""
    lowercase = set().union(*(extractive.lowercase_words(t.text) for t in turns))
    said = [[t.casefold() for t in extractive.TOKEN.findall(extractive.prose(turn.text))] for turn in turns]
    found: dict[str, Term] = {}
    for i, turn in enumerate(turns):
        here = {}
        for name in extractive.names(turn.text, lowercase):
            key = _name_key(name, found)
            if key:
                here.setdefault(key, (name, True, 2))
        for kin, shown in _kin(turn.text):
            here.setdefault(kin, (shown, True, 2))
        covered = {w for key in here for w in key.split()} | {w for name, *_ in here.values() for w in name.casefold().split()}
        tokens = said[i]
        for j, token in enumerate(tokens):
            word = re.sub(r"['’]s$", "", token)          # "grandad's" is "grandad"
            if len(word) > 3 and word not in extractive.STOP and not word.isdigit() and word not in covered \
                    and "'" not in word and "’" not in word:
                key = _lemma(word)
                nominal = 2 if _determined(tokens, j) else int(key != word and word.endswith(("s", "ing")))
                shown, _, before = here.get(key, (word, False, 0))
                here[key] = (shown, False, max(before, nominal))
        for phrase in _phrases(turn.text):
            here.setdefault(" ".join(_lemma(w) for w in phrase.split()), (phrase, False, 1))
        for key, (shown, is_name, nominal) in here.items():
            term = found.setdefault(key, Term(key, shown, is_name))
            if is_name and not term.is_name:     # "priyas bday", then "Priya": the word was her name
                term.shown, term.is_name = shown, True
            term.nominal = max(term.nominal, nominal)
            if not term.turns or term.turns[-1] != i:
                term.turns.append(i)
    _texted_names(found, said)
    return list(found.values())


# A word after one of these is used as a noun: "the invoice", "my plot".
_DETERMINERS = frozenset("the a an my our your his her their this that these those some any no every each".split())


def _determined(tokens: list[str], j: int) -> bool:
    """Is ``tokens[j]`` the head of a noun phrase: after "the", "my"…, with one word between at
    most ("the claim", "my Vodafone contract", "the better contract")?"""
    return j > 0 and (tokens[j - 1] in _DETERMINERS or
                      j > 1 and tokens[j - 2] in _DETERMINERS and tokens[j - 1] not in extractive.STOP)


def _lemma(word: str) -> str:
    """One key for a word's forms: "invoices" and "invoice", "rates" and "rate", "moving" and "move" (simplemma)."""
    import simplemma

    return simplemma.lemmatize(word, lang="en").casefold()


def _texted_names(found: dict[str, Term], said: list[list[str]]) -> None:
    """A name written once with its capital and elsewhere in lower case, as people text it
    ("dev scored!!!", … "Good luck to Dev"): its lower-case turns are its turns too."""
    from souveraine.language import lexicon

    for term in found.values():
        if term.is_name and " " not in term.key and not term.key.startswith("kin:") \
                and term.key not in lexicon.english_words():
            term.turns = sorted({*term.turns, *(i for i, tokens in enumerate(said) if term.key in tokens)})


# A parent or grandparent is someone, however they are called: "Mum", "my mother", "Grandad".
KIN = {"mum": "mum", "mom": "mum", "mother": "mum", "mummy": "mum", "mama": "mum", "dad": "dad", "father": "dad",
       "daddy": "dad", "papa": "dad", "grandad": "grandad", "granddad": "grandad", "grandfather": "grandad",
       "grandpa": "grandad", "grandma": "grandma", "grandmother": "grandma", "granny": "grandma", "nan": "grandma",
       "nana": "grandma", "gran": "grandma", "mam": "mum", "mammy": "mum"}
_KIN = re.compile(r"\b(?:(?:my|your|our|his|her|their)\s+)?(" + "|".join(KIN) + r")\b", re.IGNORECASE)


def _kin(text: str) -> list[tuple[str, str]]:
    """The parents and grandparents a turn speaks of: capitalised, someone's ("my mother"), or
    called so with no article ("grandad would have liked it"; not "a mother of three")."""
    return [(f"kin:{KIN[m[1].casefold()]}", m[1]) for m in _KIN.finditer(text)
            if m[1][0].isupper() or m[0].casefold() != m[1].casefold() or not _ARTICLE.search(text, 0, m.start())]


_ARTICLE = re.compile(r"\b(?:a|an|the|any|every|no|each|some|this|that|one)\s+$", re.IGNORECASE)


def _phrases(text: str) -> list[str]:
    """Two content words side by side ("book club", "lag alerts"): a noun phrase, roughly."""
    found = []
    for sentence in extractive.sentences(text):
        tokens = [t.casefold() for t in extractive.TOKEN.findall(sentence)]
        for a, b in zip(tokens, tokens[1:]):
            if all(len(w) > 2 and w not in extractive.STOP and w.isalpha() for w in (a, b)) \
                    and not (a in GENERIC and b in GENERIC):
                found.append(f"{a} {b}")
    return found


def _name_key(name: str, found: dict[str, Term]) -> str:
    """The key of the name already found that this one shortens or fills out, else its own words."""
    significant = [w for w in extractive.significant(name) if w.rstrip(".") not in names.TITLES and w not in names.TITLES]
    if not significant:
        return ""
    mine = set(significant)
    kin = [key for key, term in found.items() if term.is_name and (mine <= set(key.split()) or set(key.split()) <= mine)]
    return kin[0] if len(kin) == 1 else " ".join(significant)


def _terms_of(lines: list[str]) -> set[str]:
    return {m.casefold() for line in lines for m in re.findall(r"^\*([^*]+)\*", line)}


# -- the model ----------------------------------------------------------------------------

def _ask_model(turns: list[Turn], endpoint: inference.Endpoint) -> tuple[tuple | None, str | None]:
    """The model's Fold, Chain and Anchor, each line through the guard; or None and why not.
    An endpoint that fails raises InferenceError before anything is written."""
    sized = inference.budget(endpoint, "reflection")
    room = min(TRANSCRIPT_CHARS, sized.prompt_chars - len(SYSTEM_PROMPT) - len(USER_PROMPT))
    try:
        answer = inference.Client(endpoint).ask(SYSTEM_PROMPT, USER_PROMPT.format(transcript=transcript(turns, room)),
                                                max_tokens=sized.max_tokens)
    except inference.InferenceError as exc:
        if exc.code not in inference.ANSWER_FAILURES:
            raise
        return None, f"The witness model {endpoint.model} gave no usable answer ({exc}); the extractive witness was kept."
    sections = _sections(answer)
    window = {t.block_id: t.text for t in turns}
    verdicts = {name: guard.check(sections.get(name, []), window) for name in ("fold", "chain", "anchor")}
    empty = [name for name, verdict in verdicts.items() if not verdict.kept]
    if empty:
        lines = sum(len(v.kept) + len(v.refused) for v in verdicts.values())
        every = guard.Verdict(refused=[r for v in verdicts.values() for r in v.refused])   # each reason once
        reasons = every.why() or "no such section"
        return None, (f"The witness model {endpoint.model} left the {', '.join(empty)} without a line the guard "
                      f"keeps ({lines} line{'s' if lines != 1 else ''} in all; {reasons}); the extractive witness was kept.")
    links = {t.block_id: t.link for t in turns}
    written = tuple([_plain(text) + " " + " ".join(links[i] for i in ids) for text, ids in verdicts[name].kept]
                    for name in ("fold", "chain", "anchor"))
    return written, None


def transcript(turns: list[Turn], room: int = TRANSCRIPT_CHARS) -> str:
    """The newest turns that fit in ``room`` characters, each cut to TURN_CHARS."""
    shown, size = [], 0
    for turn in reversed(turns):
        line = f"[^{turn.block_id} · {turn.day} {turn.at:%H:%M} · {turn.role}] {extractive.clip(turn.text, TURN_CHARS)}"
        if shown and size + len(line) > room:
            break
        shown.append(line)
        size += len(line)
    return "\n\n".join(reversed(shown))


_HEADER = re.compile(r"^[#*_\s]*(?:the\s+)?(fold|chain|anchor)\b[*_:\s—–-]*(.*)$", re.IGNORECASE)


def _sections(answer: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for raw in answer.splitlines():
        line = raw.strip()
        header = _HEADER.match(line)
        if header and len(line) < 80 and not line.startswith(("-", "*  ", "+")):
            current = header[1].lower()
            sections.setdefault(current, [])
            if "^" in header[2]:    # "The Fold: the third turn ^t1" carries its point on the heading
                sections[current].append(_plain(header[2].strip(" *_")))
            continue
        if current and line:
            sections[current].append(_plain(line))
    return sections


def _plain(line: str) -> str:
    """A bullet's words, safe inside a journal entry (no heading, no block-id line)."""
    return extractive.clip(re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", line).lstrip("#^> ").strip(), 400)


def _append(memory: Memory, change, at, seen: Witness) -> dict:
    if seen.refusal:
        from souveraine.tempos import innervoice

        innervoice.append(change, [innervoice.Thought(at.replace(tzinfo=None), "medium", seen.refusal)])
    text = seen.render()
    relpath = journal.day_path(at.date())
    full = memory.root / relpath
    existing = full.read_text(encoding="utf-8") if full.exists() else ""
    block = journal.block_id(at, ROLE, text, None, journal.block_ids(existing))
    change.append(relpath, (journal.header(at.date()) if not existing else "") + journal.render(at, ROLE, text, None, block))
    own.witnessed(memory, relpath, block, seen.turns)
    return {"path": relpath, "block_id": block, "link": f"[[{relpath[:-3]}#^{block}]]"}
