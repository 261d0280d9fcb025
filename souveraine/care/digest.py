"""`digest`: a week of journal distilled into people/ and domains/ notes.

Each line the digest writes is dated and links back to the journal block it came from,
so the journal stays the receipt and the digest only points at it. People are found
by ``language.names``: links to people/, titles ("Dr. Amara Okafor"), given names in any
script, and what surrounds a name ("met Alice", "Alice said"), the names of people/ notes
and of people/_index.md's links known first. Domains are the names (and aliases) of
domains/ notes, the #hashtags of the turns, and the fields the journal kept returning to
over the last FIELD_WEEKS weeks (``care.fields``), each a new note when it first has a line. With a local model configured, it phrases
each line; without one (or when it fails) the line is the sentence distilled by
``language.distil``: the clause naming the subject, "I" said as the user or the agent,
relative dates made absolute, hedges trimmed, within SENTENCE_LIMIT characters.
"""

import posixpath
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from souveraine.care import links
from souveraine.care.survey import INDEX_NAMES
from souveraine.errors import NoteError, UsageError
from souveraine.language import patterns
from souveraine.store import clock, confine, journal, notes
from souveraine.store.memory import Memory

SECTION = "## From the journal"
ROLES = ("user", "assistant")
SENTENCE_LIMIT = 220
_WEEK = patterns.compile(r"^(\d{4})-W(\d{2})$")
_HASHTAG = patterns.compile(r"(?<![\w/#&])#([A-Za-z][\w-]{2,})")


@dataclass
class Subject:
    """A person or a domain the digest writes to."""

    path: str
    name: str
    kind: str            # person | domain
    new: bool = False
    lines: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)   # a detected field's other forms ("gardening", "gardens")


def iso_week(week: str | None) -> tuple[str, date, date]:
    """The label, Monday and Sunday of ``week`` (YYYY-Www); last week when None."""
    if week is None:
        today = clock.now().date()
        monday = today - timedelta(days=today.weekday() + 7)
    else:
        match = _WEEK.match(week.strip())
        try:
            monday = date.fromisocalendar(int(match[1]), int(match[2]), 1) if match else None
        except ValueError:
            monday = None
        if monday is None:
            raise UsageError(f"'{week}' is not an ISO week; give YYYY-Www, e.g. 2026-W48")
    year, number, _ = monday.isocalendar()
    return f"{year}-W{number:02d}", monday, monday + timedelta(days=6)


def digest(memory: Memory, week: str | None = None, progress: Callable[[int, int], None] | None = None) -> dict:
    label, monday, sunday = iso_week(week)
    turns = [t for t in journal.turns(memory.root, monday, sunday) if t.role in ROLES]
    people, domains = known_people(memory), known_domains(memory)
    found = recurring_fields(memory, sunday, people, domains)
    phrase = _phrasing(memory)
    touched: dict[str, Subject] = {}
    for n, turn in enumerate(turns, 1):
        for subject, sentence in _mentions(turn.text, people, domains, memory):
            touched.setdefault(subject.path, subject).lines.append(_bullet(turn, subject, sentence, phrase))
        if progress:
            progress(n, len(turns))
    with memory.change(f"chore(digest): week {label}") as change:
        written = [s for s in touched.values() if _write(memory, change, s)]
        for kind, index in (("person", "people/_index.md"), ("domain", "domains/_index.md")):
            _index(memory, change, index, [s for s in written if s.kind == kind])
    return {"week": label, "from": monday.isoformat(), "to": sunday.isoformat(), "turns": len(turns),
            "fields": sorted(s.name for s in found if s in written),
            "notes": sorted(s.path for s in written), "bullets": sum(len(s.lines) for s in written),
            "people": sorted(s.name for s in written if s.kind == "person"),
            "domains": sorted(s.name for s in written if s.kind == "domain"), "commit": change.sha}


def note_people(change, turns: list[journal.Turn]) -> list[str]:
    """At persist time: a dated, cited line in the note of each person the turns name, the
    note made (and linked from people/_index.md) when it is new. It costs a listing of
    people/, not a reading of every note; the weekly digest finds these lines there and
    does not add them again."""
    memory = change.memory
    folder = memory.root / "people"
    stems = [p.stem for p in folder.glob("*.md")] if folder.is_dir() else []
    people = {stem.replace("-", " "): Subject(f"people/{stem}.md", stem.replace("-", " ").title(), "person")
              for stem in stems if stem.lower() not in INDEX_NAMES}
    touched: dict[str, Subject] = {}
    for turn in turns:
        if turn.role not in ROLES:
            continue
        for subject, sentence in _mentions(turn.text, people, {}, memory):
            if subject.kind == "person":
                touched.setdefault(subject.path, subject).lines.append(_bullet(turn, subject, sentence, None))
    written = [s for s in touched.values() if _write(memory, change, s)]
    _index(memory, change, "people/_index.md", written)
    return sorted(s.path for s in written)


# -- who and what the journal speaks of ---------------------------------------------------


def known_people(memory: Memory) -> dict[str, Subject]:
    """Every name a person is known by, lower-cased: their note's name, title, aliases, index links."""
    found = _known(memory, "people", "person")
    index = memory.root / "people" / "_index.md"
    if index.is_file():
        vault = links.Vault.of(memory.root)
        for link in links.find(index.read_text(encoding="utf-8")):
            hit = vault.resolve(link, "people/_index.md")
            name = (link.alias or posixpath.basename(link.target)).strip()
            if hit.ok and hit.target.startswith("people/") and name:
                found.setdefault(name.lower(), _subject_of(found, hit.target) or Subject(hit.target, name, "person"))
            elif not hit.target and name and not link.target.startswith(("domains/", "journal/")):
                found.setdefault(name.lower(), Subject(f"people/{slug(name)}.md", name.title() if name.islower() else name, "person", True))
    return found


def known_domains(memory: Memory) -> dict[str, Subject]:
    return _known(memory, "domains", "domain")


FIELD_WEEKS = 8     # a field recurs across the weeks up to the digest's


def recurring_fields(memory: Memory, sunday: date, people: dict[str, Subject],
                     domains: dict[str, Subject]) -> list[Subject]:
    """The fields the journal kept returning to in the FIELD_WEEKS weeks up to ``sunday``
    (``care.fields``: gardening, a job, a language) that no domains/ note holds yet, each added
    to ``domains`` by every form it was said in, so the week's turns that name it are its lines."""
    from souveraine.care import fields

    since = sunday - timedelta(weeks=FIELD_WEEKS) + timedelta(days=1)
    spoken = [t for t in journal.turns(memory.root, since, sunday) if t.role in ROLES]
    found = []
    for f in fields.recurring(spoken, people=set(people)):
        forms = sorted(f.forms, key=lambda form: (-f.forms[form], form))
        path = f"domains/{slug(f.name)}.md"
        if any(form in domains for form in forms) or any(s.path == path for s in domains.values()):
            continue
        subject = Subject(path, f.name.capitalize(), "domain", True, aliases=[form for form in forms if form != f.name])
        for form in forms:
            domains[form] = subject
        found.append(subject)
    return found


def _known(memory: Memory, folder: str, kind: str) -> dict[str, Subject]:
    found: dict[str, Subject] = {}
    base = memory.root / folder
    for file in sorted(base.glob("*.md")) if base.is_dir() else []:
        if file.stem.lower() in INDEX_NAMES or confine.leads_out(memory.root, file):
            continue
        rel = f"{folder}/{file.name}"
        try:
            note = notes.read(file)
        except NoteError:
            continue
        title = _title(note.body)
        name = str(note.get("name") or title or file.stem.replace("-", " ").title())
        subject = Subject(rel, name, kind)
        aliases = note.get("aliases") if isinstance(note.get("aliases"), list) else []
        for variant in {file.stem, file.stem.replace("-", " "), name, title, *map(str, aliases)} - {None, ""}:
            found.setdefault(variant.lower(), subject)
    return found


def _subject_of(found: dict[str, Subject], path: str) -> Subject | None:
    return next((s for s in found.values() if s.path == path), None)


def _mentions(text: str, people: dict[str, Subject], domains: dict[str, Subject],
              memory: Memory | None = None) -> list[tuple[Subject, str]]:
    """Each subject the turn speaks of, with the sentence that does. People come from
    ``language.names`` (links to people/ honoured, titles, given names, context), known
    people first; domains from domains/ notes' names and #hashtags."""
    from souveraine.language import names, sentences

    spans = [(s.start, s.end, s.text) for s in sentences.split(text)]
    out: dict[str, tuple[Subject, str]] = {}
    for person in names.people(text, known=people):
        sentence = next((t for a, b, t in spans if a <= person.start < b), person.name)
        linked = _linked_note(text, person.start) if person.how == "link" else None
        subject = (linked and _subject_of(people, linked)) or people.get(person.name.casefold()) or _fuller(people, person.name)
        if subject is None and person.how == "title":
            subject = _surnamed(people, person.name)
        if subject is None and person.how not in ("title", "link") and memory is not None:
            subject = _given(memory, people, person.name)
        if subject is None and person.how == "link":
            subject = Subject(linked or f"people/{names.slug(person.name)}.md", person.name, "person", True)
        subject = subject or Subject(f"people/{names.slug(person.name)}.md", person.shown, "person", True)
        people.setdefault(person.name.casefold(), subject)
        if subject.path not in out:
            out[subject.path] = (subject, _plain(sentence))
    plain = _plain(text)
    split = [t for _, _, t in spans] or [plain]
    for name, subject in sorted(domains.items(), key=lambda item: -len(item[0])):
        sentence = _sentence_naming([_plain(t) for t in split], name, proper=False)
        if sentence and subject.path not in out:
            out[subject.path] = (subject, sentence)
    for tag in dict.fromkeys(_HASHTAG.findall(text)):
        subject = domains.setdefault(tag.lower(), Subject(f"domains/{slug(tag)}.md", tag.replace("-", " ").capitalize(), "domain", True))
        if subject.path not in out:
            out[subject.path] = (subject, _sentence_naming([_plain(t) for t in split], "#" + tag.lower(), proper=False) or tag)
    return list(out.values())


def _fuller(people: dict[str, Subject], name: str) -> Subject | None:
    """The one known person whose full name begins with this first name ("Alice" for "Alice Martin")."""
    from souveraine.language import names

    first = names.slug(name) + "-"      # as file names are: "tomas-silva" for "Tomás"
    fuller = {s.path: s for key, s in people.items() if s.kind == "person" and names.slug(key).startswith(first)}
    return next(iter(fuller.values())) if len(fuller) == 1 else None


def _given(memory: Memory, people: dict[str, Subject], name: str) -> Subject | None:
    """The one known person called by this full name's given name alone ("Tomás" for "Tomás
    Silva"), while no other known person shares that given name and theirs has no surname yet:
    the journal met them before it learned it. The full name becomes one of the note's aliases."""
    from souveraine.language import names

    given, _, rest = name.partition(" ")
    if not rest:
        return None
    first = names.slug(given)
    alone = {s.path: s for key, s in people.items() if s.kind == "person" and names.slug(key) == first}
    if len(alone) != 1:
        return None
    subject = next(iter(alone.values()))
    if any(names.slug(key).startswith(first + "-") and s.path != subject.path for key, s in people.items()):
        return None
    full = names.slug(name)
    surnamed = [n for n in _names_of(memory, subject) if "-" in names.slug(n)]
    if any(names.slug(n) != full for n in surnamed):
        return None
    if not surnamed and name not in subject.aliases:
        subject.aliases.append(name)
    return subject


def _names_of(memory: Memory, subject: Subject) -> list[str]:
    """What a person's note calls them: its name and aliases (the subject's own when it is new)."""
    if not memory.exists(subject.path):
        return [subject.name, *subject.aliases]
    meta = notes.parse(memory.read_text(subject.path)).meta or {}
    aliases = meta.get("aliases") if isinstance(meta.get("aliases"), list) else []
    return [str(n) for n in (meta.get("name"), *aliases) if n]


def _linked_note(text: str, at: int) -> str | None:
    """The people/ note a link at ``text[at]`` names ("people/amara-okafor.md"), whatever its alias."""
    from souveraine.language import markdown

    found = markdown.wikilink_at(text, at)
    if found is None or not found[1].target.startswith("people/"):
        return None
    stem = found[1].target.removesuffix(".md")
    return stem + ".md" if "/" not in stem[len("people/"):] else None


def _surnamed(people: dict[str, Subject], name: str) -> Subject | None:
    """The one known person whose full name ends with this titled surname ("Dr. Okafor" for
    "Amara Okafor"): a title names a person by their family name."""
    from souveraine.language import names

    last = "-" + names.slug(name.split()[-1])
    fuller = {s.path: s for key, s in people.items() if s.kind == "person" and names.slug(key).endswith(last)}
    return next(iter(fuller.values())) if len(fuller) == 1 else None


def _sentence_naming(sentences: list[str], name: str, proper: bool) -> str | None:
    """The first sentence using ``name`` as a word (capitalised, when it is a proper name)."""
    pattern = re.compile(rf"(?<![\w#]){re.escape(name)}(?!\w)" if not name.startswith("#") else rf"{re.escape(name)}(?!\w)", re.IGNORECASE)
    for sentence in sentences:
        for match in pattern.finditer(sentence):
            if not proper or match[0][0].isupper():
                return sentence
    return None


# -- writing ------------------------------------------------------------------------------


def _bullet(turn: journal.Turn, subject: Subject, sentence: str, phrase) -> str:
    """One line: when, and what was said of the subject — the model's phrase, or the sentence
    distilled (``language.distil``: the clause that names the subject, who "I" is, dates made
    absolute, hedges trimmed) — citing its turn."""
    from souveraine.language import distil

    who = distil.SPEAKERS.get(turn.role, turn.role)
    text = phrase(subject, sentence) if phrase else None
    if text:
        said = f", {who}: {_clip(text)}"
    else:
        text = distil.line(sentence, role=turn.role, at=turn.at, about=subject.name, limit=SENTENCE_LIMIT)
        # "The user will call Inês…" says who; "Tomás starts Monday" needs who said it
        said = f": {text}" if text.casefold().startswith(who + " ") else f", {who}: {text}"
    return f"- {turn.day.isoformat()}{said} [[{turn.path[:-3]}#^{turn.block_id}]]"


def _write(memory: Memory, change, subject: Subject) -> bool:
    """Add the subject's new lines to its note; False when every line was there already."""
    existing = memory.read_text(subject.path) if memory.exists(subject.path) else None
    lines = [l for l in dict.fromkeys(subject.lines) if existing is None or _receipt(l) not in existing]
    if not lines:
        return False
    subject.lines = lines
    if existing is None:
        subject.new = True
        change.write(subject.path, _new_note(subject))
    else:
        if subject.kind == "person" and subject.aliases:
            existing = _with_aliases(existing, subject.aliases)
        change.write(subject.path, _with_lines(existing, lines))
    return True


def _with_aliases(text: str, aliases: list[str]) -> str:
    """``text`` with ``aliases`` among its note's ``aliases`` property (so Obsidian and the
    next digest know the note by them too)."""
    note = notes.parse(text)
    held = note.get("aliases") if isinstance(note.get("aliases"), list) else []
    missing = [a for a in aliases if a not in held]
    if not missing:
        return text
    note["aliases"] = [*held, *missing]
    return notes.dumps(note)


def _new_note(subject: Subject) -> str:
    about = "them" if subject.kind == "person" else "it"
    properties = {"type": subject.kind, "name": subject.name,
                  "description": f"{subject.name} — what the journal says about {about}, week by week.",
                  "tags": ["people" if subject.kind == "person" else "domains"]}
    if subject.aliases:
        properties["aliases"] = subject.aliases
    note = notes.new(properties,
                     f"# {subject.name}\n\n{SECTION}\n\n" + "\n".join(subject.lines) + "\n")
    return notes.dumps(note)


def _with_lines(text: str, lines: list[str]) -> str:
    """``text`` with ``lines`` at the end of its journal section (made at the end when it has none)."""
    from souveraine.language import markdown     # a "# comment" in the section's code ends nothing

    rows = text.split("\n")
    found = markdown.section(text, SECTION.lstrip("# "))
    if found is None:
        return text.rstrip("\n") + f"\n\n{SECTION}\n\n" + "\n".join(lines) + "\n"
    start, end = found.heading.line, min(found.end, len(rows))
    while end > start + 1 and not rows[end - 1].strip():
        end -= 1
    gap = [] if rows[end - 1].startswith("- ") else [""]
    return "\n".join(rows[:end] + gap + lines + rows[end:]).rstrip("\n") + "\n"


def _index(memory: Memory, change, index: str, subjects: list[Subject]) -> None:
    if not subjects:
        return
    if memory.exists(index):
        text = memory.read_text(index)
    else:
        text = notes.dumps(notes.new({"type": "index", "description": "Every domain this memory knows, one note each in domains/.",
                                      "tags": ["domains", "index"]}, "# Domains\n"))
    vault = links.Vault.near(memory.root)
    present = {hit.target for hit in (vault.resolve(l, index) for l in links.find(text)) if hit.ok}
    rows = [f"- {links.wikilink(s.path, alias=s.name)}" for s in sorted(subjects, key=lambda s: s.path) if s.path not in present]
    if rows:
        text = text.rstrip("\n")
        gap = "\n" if text.rpartition("\n")[2].startswith("- ") else "\n\n"    # one list, not loose items
        change.write(index, text + gap + "\n".join(rows) + "\n")


def _receipt(line: str) -> str:
    return line[line.rindex("[["):]


def _phrasing(memory: Memory):
    """The local model's phrasing when one is configured; each phrase passes the guard (it
    shares words with the sentence and holds no figure the sentence does not), else the
    clause is kept as written."""
    if not memory.config["inference"]["endpoint"]:
        return None
    from souveraine.errors import SouveraineError
    from souveraine.inference import client, guard

    endpoint = client.endpoint_for(memory.config, "archivist")

    def phrase(subject: Subject, sentence: str) -> str | None:
        prompt = f"In one short sentence, what does this say about {subject.name}? Answer with the sentence only."
        try:
            answer = client.Client(endpoint).ask(prompt, sentence, max_tokens=80, temperature=0)
        except SouveraineError:
            return None
        reason, text, _ = guard.judge(" ".join(answer.split()) + " ^said", {"said": sentence})
        return None if reason else text

    return phrase


def _plain(text: str) -> str:
    """Text without link syntax, so a copied sentence cannot carry a link that does not resolve."""
    if "[[" not in text:
        return text
    from souveraine.language import markdown

    return markdown.shown(text, lambda l: (l.alias or _named(l.target)) if l.kind == "wiki" else None)


def _named(target: str) -> str:
    """What a link without an alias reads as in prose: a person's name for [[people/alice]]."""
    folder, _, stem = target.rpartition("/")
    if folder.rpartition("/")[2] == "people" and stem.islower():
        return stem.replace("-", " ").title()
    return target


def _title(body: str) -> str | None:
    from souveraine.language import markdown

    return markdown.title(body)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SENTENCE_LIMIT else text[:SENTENCE_LIMIT - 1].rstrip() + "…"


def slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "-".join(re.findall(r"[a-z0-9]+", plain)[:6]) or "untitled"
