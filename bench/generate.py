"""Realistic synthetic memories of N years, built through the library and cached by their shape.

    python bench/generate.py --years 1          # prints the cached memory's folder
    python bench/generate.py --years 10 --seed 2

A day is one commit, as a life lived with the tool makes it: that day's journal file (turns
of everyday length, user short, assistant longer, in one to three sessions), the memories
taken from it (tiered; 0.4% elevated to foundational, one in twenty of those to constitutive, each
with a real ed25519 attestation by a second project, "witness", under a covenant this
memory enters right after its bootstrap), people and
domain notes that grow with [[wikilinks]] to the turns that mention them, a reflection every 25 messages, inner-voice lines,
ledger commitments opened and closed, and at the end of a day that brought the count past 100
messages, a synthesis in system/synthesized/ with `through:` (the previous one moves to
archive/ unchanged). The files are rendered by
the library (store.journal, identity.memories.new_note, store.notes, tempos.ledger,
tempos.innervoice); git fast-import writes the history in one stream, so ten years of days
take seconds of git, and every commit passes `souveraine verify`.

Deterministic from the seed, the project id and commit ids included. Built once per shape
under bench/.cache/<shape hash>/memory; callers work on a copy (`copy_of`).
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import conversations  # noqa: E402
from souveraine.identity import memories  # noqa: E402
from souveraine.store import journal, notes  # noqa: E402
from souveraine.tempos import innervoice, ledger, reflect  # noqa: E402

VERSION = 7                 # bump when what is generated changes shape (7: memories in year folders)
CACHE = Path(__file__).resolve().parent / ".cache"
END = date(2026, 11, 30)
AUTHOR = ("Bench", "bench@localhost")
CONSTITUTIVE_EVERY = 20    # elevations: a handful of constitutive memories a decade, each in every wake
REFLECT_EVERY = 25          # messages, as [reflection] message_interval says by default

COMMON = ("the a and to of I you it is that in we for this on was with my but be have not are so just "
          "what about can do at if me like your all think there will one would get out know time").split()
REAL = ("book harbour kayak garden holiday budget spreadsheet recipe lentils curry tea rooibos genmaicha "
        "meeting roadmap dentist appointment release planned birthday present morning lantern orchard "
        "quote people thinking zeppelin").split()
FIRST = ["Clara", "Malik", "Ines", "Tomasz", "Yuki", "Ana", "Olu", "Sven", "Priya", "Luca", "Noor", "Jonas",
         "Hortense", "Mateo", "Leila", "Bastien", "Amara", "Kenji", "Soraya", "Emil", "Zofia", "Idris", "Maren", "Teo"]
LAST = ["Moreau", "Haddad", "Novak", "Tanaka", "Okafor", "Lindqvist", "Rao", "Bianchi", "Vallière", "Costa",
        "Keller", "Nakamura", "Dubois", "Mensah", "Petrov", "Silva"]
DOMAINS = ["cooking", "gardening", "running", "reading", "travel", "music", "health", "money", "home",
           "languages", "photography", "work/billing", "work/search", "work/onboarding", "work/hiring"]


@dataclass(frozen=True)
class Shape:
    """What a generated memory holds; its hash names the cache folder."""

    days: int = 365
    turns_per_day: int = 40          # on average; a day has between half and one and a half times it
    memories_per_day: int = 8        # on average: tens of thousands over ten years
    people: int = 48
    elevated_per_mille: int = 4      # memories raised (each needs a witness's signature): ~120 in ten years
    synthesis_every: int = 100       # messages, as [archivist] interval says by default
    seed: int = 1
    end: str = END.isoformat()
    commits_per_day: int = 1         # more: the day's journal is committed as it grows, its last commit whole

    @classmethod
    def years(cls, years: float, **fields) -> "Shape":
        return cls(days=round(365.25 * years), **fields)

    @property
    def key(self) -> str:
        fields = asdict(self)
        if fields["commits_per_day"] == 1:      # the shapes cached before it was a field keep their names
            del fields["commits_per_day"]
        blob = json.dumps({"version": VERSION, **fields}, sort_keys=True)
        return f"{self.days}d-" + hashlib.sha256(blob.encode()).hexdigest()[:12]


@dataclass
class Built:
    root: Path
    shape: Shape
    stats: dict = field(default_factory=dict)


# -- words ---------------------------------------------------------------------------------


class Speech:
    """Zipf-distributed words, everyday templates and names: turns that read like talk."""

    def __init__(self, rng: random.Random, names: list[str], size: int = 30_000):
        self.rng = rng
        self.names = names
        self.words = COMMON + _invented(rng, size - len(COMMON))
        total, self.cumulative = 0.0, []
        for rank in range(1, len(self.words) + 1):
            total += 1 / rank
            self.cumulative.append(total)

    def sentence(self, shortest: int = 6, longest: int = 24) -> str:
        rng = self.rng
        if rng.random() < 0.25:
            pool = conversations.FILLER_USER if rng.random() < 0.5 else conversations.FILLER_ASSISTANT
            return rng.choice(pool).format(
                person=rng.choice(self.names).split()[0], relative=rng.choice(conversations.RELATIVES),
                city=rng.choice(conversations.CITIES), project=rng.choice(conversations.PROJECTS),
                lang=rng.choice(conversations.LANGUAGES))
        words = rng.choices(self.words, cum_weights=self.cumulative, k=rng.randint(shortest, longest))
        return " ".join(words).capitalize() + rng.choice(".....?!")

    def turn(self, role: str) -> str:
        """User turns are a sentence or three; the assistant's run to paragraphs, sometimes a list."""
        rng = self.rng
        if role == "user":
            return " ".join(self.sentence(3, 18) for _ in range(rng.choice((1, 1, 1, 2, 2, 3))))
        paragraphs = []
        for _ in range(rng.choice((1, 1, 2, 2, 3, 4))):
            if rng.random() < 0.15:
                paragraphs.append("\n".join(f"- {self.sentence(4, 12)}" for _ in range(rng.randint(2, 5))))
            else:
                paragraphs.append(" ".join(self.sentence() for _ in range(rng.randint(1, 4))))
        return "\n\n".join(paragraphs)


def _invented(rng: random.Random, size: int) -> list[str]:
    """A vocabulary of made-up words, with a few real ones at everyday ranks."""
    syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "qu", "dor", "ni", "pa", "shi", "ber", "an", "el",
                 "um", "ro", "tes", "gar", "fin", "ol", "mar", "cre", "di", "us"]
    invented = {"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size * 2)}
    words = sorted(invented - set(REAL) - set(COMMON))[: size - len(REAL)]
    rng.shuffle(words)
    for word in REAL:
        words.insert(rng.randint(30, 5000), word)
    return words


# -- a life, day by day ----------------------------------------------------------------------


def slug(text: str) -> str:
    return memories.slug(text, words=8)


class Life:
    """The memory's files as they grow; ``day()`` returns what that day changed."""

    def __init__(self, shape: Shape, files: dict[str, str]):
        self.shape = shape
        self.rng = random.Random(shape.seed)
        self.files = files                                   # path -> text, at the last day
        names = [f"{FIRST[i % len(FIRST)]} {LAST[(i * 7 + i // len(FIRST)) % len(LAST)]}" for i in range(shape.people)]
        self.people = {name: f"people/{slug(name)}" for name in names}
        self.domains = {name: f"domains/{name}" for name in DOMAINS}
        self.speech = Speech(self.rng, names)
        self.synthesis: str | None = None
        self.synthesized_from: date | None = None
        self.unsynthesized = 0                              # messages since the last synthesis
        self.open_commitments: list[tuple[date, ledger.Entry]] = []
        self.signer = None
        self.unwitnessed: list[journal.Turn] = []          # spoken turns since the last reflection
        self.count = {"turns": 0, "memories": 0, "elevated": 0, "syntheses": 0}

    # The first day also writes the people and domain notes, and the index of people.
    def introductions(self) -> dict[str, str]:
        changed = {}
        for name, link in self.people.items():
            changed[link + ".md"] = notes.dumps(notes.new({
                "type": "person", "description": f"{name}, someone the user talks about.",
                "aliases": [name.split()[0]], "tags": ["person"]},
                f"# {name}\n\nOften comes up around {self._domain_links(2)}.\n\n## Mentions\n"))
        for name, link in self.domains.items():
            people = self.rng.sample(list(self.people.items()), 2)
            changed[link + ".md"] = notes.dumps(notes.new({
                "type": "domain", "description": f"What the memory knows about {name.replace('/', ': ')}.",
                "tags": ["domain"]},
                f"# {name}\n\nPeople: {', '.join(f'[[{p}|{n}]]' for n, p in people)}. "
                f"See also {self._domain_links(1, besides=name)}.\n\n## Notes\n"))
        index = self.files["people/_index.md"].rstrip("\n") + "\n\n" + "".join(
            f"- [[{link}|{name}]]\n" for name, link in self.people.items())
        changed["people/_index.md"] = index
        return changed

    def _domain_links(self, n: int, besides: str = "") -> str:
        picked = self.rng.sample([d for d in self.domains if d != besides], n)
        return " and ".join(f"[[{self.domains[d]}|{d}]]" for d in picked)

    def day(self, day: date) -> dict[str, str | None]:
        rng = self.rng
        changed: dict[str, str | None] = {}
        turns, mentions = self._conversation(day)
        path = journal.day_path(day)
        changed[path] = journal.header(day) + "".join(journal.render(t.at, t.role, t.text, t.session, t.block_id)
                                                      for t in turns)
        for _ in range(rng.randint(0, 2 * self.shape.memories_per_day)):
            relpath, text = self._memory(rng.choice(turns), mentions)
            changed[relpath] = text
        for name, turn in mentions[:3]:
            self._grow(changed, self.people[name] + ".md", f"- {turn.link} {self._gist(turn)}\n")
        if rng.random() < 2 / 7:
            domain = self.domains[rng.choice(DOMAINS)] + ".md"
            self._grow(changed, domain, f"- {self._gist(rng.choice(turns))} ({_link(turns[-1])})\n")
        if rng.random() < 2 / 7:
            thought = innervoice.Thought(turns[-1].at, rng.choice(("low", "low", "medium")), self.speech.sentence(6, 16))
            self._grow(changed, innervoice.PATH, thought.render() + "\n")
        self._ledger(changed, day, turns)
        self.unsynthesized += sum(t.role != reflect.ROLE for t in turns)
        if self.unsynthesized >= self.shape.synthesis_every:
            self._synthesize(changed, day, turns)
            self.unsynthesized = 0
        self.files.update({p: t for p, t in changed.items() if t is not None})
        for p, t in changed.items():
            if t is None:
                self.files.pop(p, None)
        self.count["turns"] += len(turns)
        self.turns = turns
        return changed

    def _conversation(self, day: date) -> tuple[list[journal.Turn], list[tuple[str, journal.Turn]]]:
        """One to three sessions of alternating turns; now and then a turn names a person."""
        rng, per_day = self.rng, self.shape.turns_per_day
        count = 2 * max(1, rng.randint(per_day // 2, per_day * 3 // 2) // 2)
        hours = sorted(rng.sample(range(8, 22, 2), rng.choice((1, 2, 2, 3))))
        turns, mentions, taken = [], [], set()
        path = journal.day_path(day)
        for n in range(count):
            hour = hours[n * len(hours) // count]
            session = f"{day:%y%m%d}{hour:02d}"
            if not turns or turns[-1].session != session:
                at = datetime(day.year, day.month, day.day, hour, rng.randint(0, 30))
            at += timedelta(seconds=rng.randint(5, 150))
            role = "user" if n % 2 == 0 else "assistant"
            text = self.speech.turn(role)
            name = rng.choice(list(self.people)) if rng.random() < 0.08 else None
            if name:
                text = f"{name.split()[0]}: {text[0].lower()}{text[1:]}"
            block = journal.block_id(at, role, text, session, taken)
            taken.add(block)
            turns.append(journal.Turn(block, at, role, session, text, path))
            if name:
                mentions.append((name, turns[-1]))
            self.unwitnessed.append(turns[-1])
            if len(self.unwitnessed) == REFLECT_EVERY:
                turns.append(self._reflection(taken))
        return turns, mentions

    def _reflection(self, taken: set[str]) -> journal.Turn:
        """The N+25 witness entry, in reflect's own form, its elements picked cheaply from the window."""
        rng, window = self.rng, self.unwitnessed
        self.unwitnessed = []
        first, last = window[0], window[-1]
        loud, a, b = rng.choice(window), *sorted(rng.sample(range(len(window)), 2))
        word = max(window[a].text.split(), key=len).strip(".,?!:").lower()
        seen = reflect.Witness(window, "extractive",
                               fold=[f"“{loud.text.split(chr(10))[0][:160]}”, said the {loud.role} ({loud.link})"],
                               chain=[f"*{word}*: {window[a].link} → {window[b].link}"],
                               anchor=[f"*{word}*, from {first.link} to {last.link}, in 2 turns"])
        at = last.at + timedelta(seconds=30)
        text = seen.render()
        block = journal.block_id(at, reflect.ROLE, text, None, taken)
        taken.add(block)
        return journal.Turn(block, at, reflect.ROLE, None, text, last.path)

    def _memory(self, turn: journal.Turn, mentions) -> tuple[str, str]:
        rng = self.rng
        text = self.speech.sentence(8, 30)
        if mentions and rng.random() < 0.5:
            name = rng.choice(mentions)[0]
            text += f" It concerns [[{self.people[name]}|{name}]]."
        created = turn.at.replace(tzinfo=timezone.utc) + timedelta(minutes=1)
        memory_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        relpath, note = memories.new_note(text, memory_id=memory_id, created=created, source=_link(turn))
        self.count["memories"] += 1
        if rng.randrange(1000) < self.shape.elevated_per_mille and self.signer is not None:
            tier = "constitutive" if self.count["elevated"] % CONSTITUTIVE_EVERY == 0 else "foundational"
            self.signer.elevate(note, tier, created)
            self.count["elevated"] += 1
        return relpath, notes.dumps(note)

    def _gist(self, turn: journal.Turn) -> str:
        words = turn.text.split("\n")[0].removeprefix("- ").split()[:10]
        return " ".join(w.strip("[]|#^") for w in words)

    def _grow(self, changed: dict, relpath: str, line: str) -> None:
        current = changed.get(relpath) or self.files[relpath]
        changed[relpath] = current + ("" if current.endswith("\n") else "\n") + line

    def _ledger(self, changed: dict, day: date, turns: list[journal.Turn]) -> None:
        """A promise a week; promises older than three weeks are kept, and closed."""
        relpath = ledger.path("commitments")
        due = [e for when, e in self.open_commitments if (day - when).days > 21]
        opened = None
        if day.weekday() == 2:
            turn = next((t for t in reversed(turns) if t.role == "assistant"), turns[-1])
            words = f"I'll follow up on {self._gist(turn)}"
            source = f"[[{turn.path[:-3]}#^{turn.block_id}|{turn.day} {turn.at:%H:%M}]]"
            opened = ledger.Entry("commitments", ledger.entry_id("commitments", source, words), "open",
                                  ledger.clean(words), "follow_up", source)
            self.open_commitments.append((day, opened))
        if not due and opened is None:
            return
        text = changed.get(relpath) or self.files[relpath]
        closing = _link(turns[0])
        for entry in due:
            ended = ledger.Entry("commitments", entry.id, "closed", entry.text, entry.label, entry.source,
                                 "closed by", closing)
            text = text.replace(entry.render(), ended.render())
        self.open_commitments = [(w, e) for w, e in self.open_commitments if e not in due]
        changed[relpath] = text + (opened.render() + "\n" if opened else "")

    def _synthesize(self, changed: dict, day: date, turns: list[journal.Turn]) -> None:
        """The archivist's note: a few cited lines, ``through`` this day's last turn."""
        rng, last = self.rng, turns[-1]
        start = self.synthesized_from or day
        relpath = f"system/synthesized/synthesis-{day}-{last.at:%H%M%S}.md"
        sources = [f"[[{journal.day_path(day)[:-3]}]]"]
        if self.synthesis:
            archived = "archive/" + self.synthesis.rsplit("/", 1)[1]
            changed[archived] = self.files[self.synthesis]
            changed[self.synthesis] = None
            sources.insert(0, f"[[{archived[:-3]}]]")
        sections = "".join(
            f"\n## {title}\n" + "".join(f"- {self._gist(t)} ({_link(t)})\n" for t in rng.sample(turns, min(3, len(turns))))
            for title in ("Decisions", "Promises", "Dates", "Essence", "Names"))
        body = (f"# Essence through {day:%A} {day.day} {day:%B %Y}\n\nThe archivist's synthesis of the journal "
                f"from {start} to {day}, by the extractive method. The raw journal is kept whole.\n{sections}")
        changed[relpath] = notes.dumps(notes.new({
            "type": "synthesis", "description": f"The essence of the journal through {day}, by the archivist.",
            "from": start.isoformat(), "through": day.isoformat(), "through_turn": last.block_id,
            "turns": self.count["turns"], "method": "extractive",
            "created": datetime.combine(day, last.at.time(), timezone.utc).isoformat(),
            "sources": sources, "tags": ["synthesized"]}, body))
        self.synthesis, self.synthesized_from = relpath, day + timedelta(days=1)
        self.count["syntheses"] += 1


def _link(turn: journal.Turn) -> str:
    return f"[[{turn.path[:-3]}#^{turn.block_id}]]"


# -- git -------------------------------------------------------------------------------------


def _stamp(day: date) -> int:
    return int(datetime.combine(day, datetime.min.time(), timezone.utc).timestamp()) + 23 * 3600


def _commit_stream(message: str, when: int, changed: dict[str, str | None], parent: str | None) -> bytes:
    body = message.encode()
    who = f"{AUTHOR[0]} <{AUTHOR[1]}> {when} +0000\n".encode()
    out = [b"commit refs/heads/main\n", b"author " + who, b"committer " + who,
           f"data {len(body)}\n".encode(), body, b"\n"]
    if parent:
        out.append(f"from {parent}\n".encode())
    for path, text in sorted(changed.items()):
        if text is None:
            out.append(f"D {path}\n".encode())
            continue
        data = text.encode("utf-8")
        out += [f"M 100644 inline {path}\n".encode(), f"data {len(data)}\n".encode(), data, b"\n"]
    return b"".join(out)


def _git(root: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    from souveraine.store import git

    return git.run(root, *args, **kwargs)


@contextmanager
def _fixed(seed: str, when: int, keys: Path):
    """init and the covenant made deterministic: seeded randomness (project id, key seeds),
    a fixed author, date and now, and a key folder of the bench's own."""
    rng = random.Random(seed)
    stamp = datetime.fromtimestamp(when, timezone.utc).isoformat()
    env = {"GIT_AUTHOR_NAME": AUTHOR[0], "GIT_AUTHOR_EMAIL": AUTHOR[1], "GIT_COMMITTER_NAME": AUTHOR[0],
           "GIT_COMMITTER_EMAIL": AUTHOR[1], "GIT_AUTHOR_DATE": f"{when} +0000", "GIT_COMMITTER_DATE": f"{when} +0000",
           "SOUVERAINE_NOW": stamp, "XDG_CONFIG_HOME": str(keys)}
    with mock.patch.dict(os.environ, env), mock.patch("os.urandom", rng.randbytes):
        yield


class Signer:
    """A second project, "witness", whose identity signs elevations here, under a covenant
    entered in this memory's first commits: real ed25519 signatures that `verify` checks."""

    HANDLE = "witness"

    def __init__(self, root: Path, seed: int, when: int):
        from souveraine.bootstrap import init
        from souveraine.identity import covenants, identities, keys
        from souveraine.store.memory import Memory

        self.keys = root.parent / f"{root.name}-keys"
        other = root.parent / f"{root.name}-witness"
        with _fixed(f"witness-{seed}", when, self.keys):
            card = covenants.parse_card(json.dumps(identities.card(Memory(init(other, identity=self.HANDLE).root))))
            covenants.add(Memory(root), did=card["did"], keys=card["keys"], project_id=card["project_id"],
                          handle=self.HANDLE)
            self.keypair = keys.load(card["did"])

    def elevate(self, note: notes.Note, tier: str, when: datetime) -> None:
        """The note as `elevate` leaves it: raised, and carrying the witness's attestation."""
        from souveraine.identity import elevation, witness

        with mock.patch.dict(os.environ, {"SOUVERAINE_NOW": when.isoformat()}):
            attestation = witness.make(self.keypair, note["id"], tier, note["content_sha256"])
            elevation._raise_tier(note, tier, {})
        attestation["covenant"] = self.HANDLE
        elevation._set_before(note, "attesters", [attestation["attester_did"]], "description")
        note.body = memories.join(note.body, [attestation])


# -- building and caching --------------------------------------------------------------------


def build(root: Path, shape: Shape, progress=None) -> Built:
    """Write the memory of ``shape`` at ``root`` (a folder that does not exist yet)."""
    from souveraine.bootstrap import init
    from souveraine.laws.install import install

    end = date.fromisoformat(shape.end)
    first = end - timedelta(days=shape.days - 1)
    before = _stamp(first - timedelta(days=1))
    with _fixed(f"project-{shape.seed}", before, root.parent / f"{root.name}-keys"):
        init(root, identity="bench", name="bench")
    life = Life(shape, {})
    life.signer = Signer(root, shape.seed, before + 60) if _witnessed() else None
    life.files.update({p: (root / p).read_text(encoding="utf-8") for p in _git(root, "ls-files").stdout.splitlines()})
    parent = _git(root, "rev-parse", "HEAD").stdout.strip()
    importer = subprocess.Popen(["git", "-C", str(root), "fast-import", "--quiet", "--force"],
                                stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    started, children = time.perf_counter(), _children_cpu()
    commits = 0
    for n in range(shape.days):
        day = first + timedelta(days=n)
        first_day = {}
        if n == 0:
            first_day = life.introductions()
            life.files.update(first_day)
        changed = {**first_day, **life.day(day)}
        parts = _parts(day, changed, life.turns, shape.commits_per_day)
        for k, (message, part) in enumerate(parts):
            when = _stamp(day) - 60 * (len(parts) - 1 - k)
            importer.stdin.write(_commit_stream(message, when, part, parent if commits == 0 else None))
            commits += 1
        if progress and n % 100 == 99:
            progress(n + 1, shape.days)
    importer.stdin.close()
    if importer.wait() != 0:
        raise SystemExit(f"bench: git fast-import failed: {importer.stderr.read().decode()}")
    _git(root, "reset", "-q", "--hard")
    install(root)
    return Built(root, shape, {**life.count, "days": shape.days, "commits": commits + 2, "seconds": round(time.perf_counter() - started, 1),
                               "git_cpu_seconds": round(_children_cpu() - children, 1)})


def _parts(day: date, changed: dict, turns: list, count: int) -> list[tuple[str, dict]]:
    """The day as ``count`` commits, oldest first: the journal as it stood after each of the first
    count - 1 shares of its turns (appended, as persist commits it), then the whole day."""
    whole = (_message(day, changed), changed)
    path = journal.day_path(day)
    if count == 1 or path not in changed:
        return [whole]
    parts = []
    for k in range(1, count):
        told = turns[:len(turns) * k // count]
        text = journal.header(day) + "".join(journal.render(t.at, t.role, t.text, t.session, t.block_id) for t in told)
        parts.append((f"chore(journal): {day}, {len(told)} turns", {path: text}))
    return [*parts, whole]


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def _message(day: date, changed: dict) -> str:
    made = sum(1 for p in changed if p.startswith("memories/"))
    return f"chore(journal): {day}, with {made} memories" if made else f"chore(journal): {day}"


def _witnessed() -> bool:
    """Whether the identity engine is there to check elevations (it came after the first benches)."""
    import importlib.util

    return importlib.util.find_spec("souveraine.identity.witness") is not None


def cached(shape: Shape, progress=None, cache: Path = CACHE) -> Built:
    """The memory of ``shape``, built on first use and kept under ``cache`` (bench/.cache)."""
    folder = Path(cache) / shape.key
    manifest = folder / "shape.json"
    if manifest.exists():
        return Built(folder / "memory", shape, json.loads(manifest.read_text())["stats"])
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    building = folder / "building"
    built = build(building, shape, progress)
    building.rename(folder / "memory")
    manifest.write_text(json.dumps({"shape": asdict(shape), "stats": built.stats}, indent=2))
    return Built(folder / "memory", shape, built.stats)


def copy_of(built: Built, into: Path) -> Path:
    """A working copy of a cached memory: its index refreshed (a copy's stat data is stale) and
    its hooks pointing at this checkout's interpreter."""
    from souveraine.laws.install import install

    root = into / "memory"
    shutil.copytree(built.root, root, symlinks=True)
    _git(root, "update-index", "-q", "--refresh", check=False)
    install(root)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=float, default=1)
    parser.add_argument("--days", type=int, help="instead of --years")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commits-per-day", type=int, default=1, help="the day's journal committed as it grows")
    args = parser.parse_args()
    fields = {"seed": args.seed, "commits_per_day": args.commits_per_day}
    shape = Shape(days=args.days, **fields) if args.days else Shape.years(args.years, **fields)
    started = time.perf_counter()
    built = cached(shape, progress=lambda n, total: print(f"  {n}/{total} days", file=sys.stderr, end="\r"))
    print(f"{built.root}  ({json.dumps(built.stats)}; {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
