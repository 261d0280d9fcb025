"""archive (N+100): the archivist keeps the agent within its model's context.

Pressure (tempos.pressure) is what wake pins plus the journal not yet synthesized. When
it reaches the threshold, or every ``interval`` messages, the archivist compresses the
journal since the last synthesis — together with that synthesis, so nothing it held is
dropped from the wake — into one dense note in system/synthesized/, and moves the
superseded note, unchanged, to archive/. The raw journal is only read, never written.

The extractive method keeps facts first — decisions, commitments, dates and times,
numbers, preferences, what was said of people (inference.facts) — then the
best-connected rest (Luhn's measure), each line citing its turns, and lists the names as
an index. It carries the superseded synthesis forward, marking what a later fact
changed. With an endpoint configured, a local model lists the facts of each chunk of
turns; each of its lines passes the guard (inference.guard) or goes, the extractive
facts it dropped are kept beside it, and an answer the guard mostly refuses is not used:
the extractive synthesis is committed and the inner voice says why.
"""

import re
from dataclasses import dataclass, field
from datetime import date

from souveraine.inference import client as inference
from souveraine.inference import extractive, facts, guard
from souveraine.store import clock, journal, notes, tokens
from souveraine.store.journal import Turn
from souveraine.store.memory import Memory
from souveraine.sync import own
from souveraine.tempos import pressure

FOLDER = pressure.SYNTHESIZED
ARCHIVE = "archive"
SPOKEN = ("user", "assistant")
SECTIONS = {"decision": "Decisions", "commitment": "Commitments", "date": "Dates and times", "number": "Numbers",
            "preference": "Preferences", "person": "People", "essence": "Essence"}
OLD_TITLES = {"Promises": "commitment", "Dates": "date"}   # syntheses written before the facts had their kinds
SUPERSEDED = "Superseded"
BUDGET_SHARE = 0.05    # a synthesis takes at most this share of the model's context…
SOURCE_SHARE = 0.35    # …and of what it compresses,
MIN_BUDGET = 300       # but never fewer tokens than this.
FACT_WEIGHT = 4        # a line weighing this much (inference.facts) is a fact the budget must make room for
MOST_NAMES = 200
CHUNK_CHARS = 12_000   # transcript sent to the model per request
GUARD_SHARE = 0.5      # a model's answer is used when at least this share of its lines pass the guard
SYSTEM_PROMPT = """You are the archivist of an AI agent's long-term memory. From the turns \
below, list the facts worth keeping: decisions, commitments, dates and times, numbers, \
preferences, and what was said of people. Write only what the turns say; invent nothing; \
drop pleasantries. Answer in Markdown with the sections ## Decisions, ## Commitments, \
## Dates and times, ## Numbers, ## Preferences, ## People — each a list of short bullet \
points, a section left out when it has none — and end every bullet with the block ids of \
the turns it comes from, written like ^t143205u4a1f. Stay under {words} words."""
USER_PROMPT = """The turns, under their day, each shown as ^block-id role: what was said

{turns}

List the facts of these turns."""


@dataclass
class Item:
    kind: str
    text: str
    links: list[str]
    order: tuple
    score: float = 0.0          # Luhn's measure: how connected its words are to the rest
    weight: float = 0.0         # how much it matters as a fact (inference.facts)
    values: tuple = ()
    subject: set = field(default_factory=set)
    superseded_by: str | None = None
    carried: bool = False

    def line(self) -> str:
        cited = f" ({', '.join(self.links)})" if self.links else ""
        if self.superseded_by:
            return f"- ~~{self.text}~~{cited} → {self.superseded_by}"
        return f"- {self.text}{cited}"


@dataclass
class Plan:
    path: str
    text: str
    turns: list[Turn]      # the user and assistant turns compressed
    last: Turn             # the last turn covered, whatever its role
    moves: list[tuple[str, str]] = field(default_factory=list)
    method: str = "extractive"
    guard: dict | None = None      # what the guard made of a model's answer
    refusal: str | None = None     # why a model's answer was not used, said once in the inner voice


def due(memory: Memory, model: str | None = None) -> bool:
    """The archivist is on and has work: pressure at the threshold, or ``interval`` messages."""
    return memory.config["archivist"]["enabled"] and pressure.measure(memory, model).due


def run(memory: Memory, *, force: bool = False, dry_run: bool = False, model: str | None = None, change=None,
        extractive_only: bool = False, progress=None) -> dict:
    """Synthesize the journal since the last synthesis, if due (or ``force``).

    ``model`` names the [models.<name>] whose context is measured. ``progress(done, total)``
    is called as the journal is read and the essence written. Inside a caller's ``change``
    the files are added to it; otherwise they are committed as ``chore(archive): …``.
    """
    if not memory.config["archivist"]["enabled"]:
        return {"archived": False, "reason": "the archivist is off ([archivist] enabled = false in souveraine.toml)"}
    limits = memory.config.model(model)
    before = pressure.measure(memory, model)
    if before.messages == 0:
        return _nothing(before)
    if not force and not before.due:
        return {"archived": False, "pressure": {"before": before.to_dict()},
                "reason": f"not due: pressure {before.ratio:.1%} (archives at {before.threshold:.0%}), "
                          f"{before.messages} of {before.interval} messages"}
    endpoint = None if extractive_only else inference.endpoint_for(memory.config, "archivist")
    plan = compose(memory, limits, endpoint, progress)
    if plan is None:
        return _nothing(before)
    result = {"archived": not dry_run, "dry_run": dry_run, "path": plan.path, "turns": len(plan.turns),
              "from": str(plan.turns[0].day), "through": str(plan.last.day),
              "through_turn": plan.last.block_id, "method": plan.method,
              **({"guard": plan.guard} if plan.guard else {}), **({"refused": plan.refusal} if plan.refusal else {}),
              "moved": [{"from": old, "to": new} for old, new in plan.moves]}
    if dry_run:
        after = _estimate(memory, before, plan, limits)
        return {**result, "pressure": {"before": before.to_dict(), "after": after.to_dict()}, "synthesis": plan.text}
    message = f"chore(archive): synthesize {len(plan.turns)} turns through {plan.last.day}"
    if change is not None:
        _write(change, plan)
    else:
        with memory.change(message) as own:
            _write(own, plan)
        result["commit"] = own.sha
    after = pressure.measure(memory, model)
    return {**result, "pressure": {"before": before.to_dict(), "after": after.to_dict()}}


def _nothing(before: pressure.Pressure) -> dict:
    return {"archived": False, "reason": "nothing to synthesize: no messages since the last synthesis",
            "pressure": {"before": before.to_dict()}}


def compose(memory: Memory, limits: dict, endpoint: inference.Endpoint | None = None, progress=None) -> Plan | None:
    """The new synthesis (not yet written) and the moves of the ones it supersedes; None when
    no message waits. It covers every pending turn, the last one whatever its role."""
    mark = pressure.last_synthesis(memory)
    # One bar per run: the days read for the extractive method, the chunks sent to a model.
    turns = own.pending(memory)   # once the memory syncs, this device's own (sync.own)
    if turns is None:
        turns = pending_turns(memory, mark, progress if endpoint is None else None)
    spoken = [t for t in turns if t.role in SPOKEN]
    if not spoken:
        return None
    old = superseded(memory)
    previous = [notes.read(memory.root / path) for path in old]
    moves = [(path, _free(memory, f"{ARCHIVE}/{path.rsplit('/', 1)[-1]}")) for path in old]
    lines, guard, refusal = [], None, None
    if endpoint is not None:
        lines, guard = model_lines(spoken, limits, endpoint, progress)
        if guard["share"] < GUARD_SHARE:
            refusal = (f"The archivist's model {endpoint.model} wrote an essence the guard refused "
                       f"({guard['refused']} of {guard['refused'] + guard['kept']} lines: {guard['why']}); "
                       f"the extractive synthesis was kept.")
            lines = []
    method = endpoint.model if lines else "extractive"
    body = extractive_essence(spoken, previous, limits, [new for _, new in moves], lines)
    last = turns[-1]
    path = f"{FOLDER}/synthesis-{last.day}-{last.at:%H%M%S}.md"
    note = notes.new({
        "type": "synthesis",
        "description": f"The essence of the journal through {last.day}, {len(spoken)} turns, by the archivist.",
        "from": _first_day(previous) or spoken[0].day,
        "through": last.day,
        "through_turn": last.block_id,
        "turns": len(spoken),
        "method": method,
        "created": clock.now().replace(microsecond=0).isoformat(),
        "sources": [f"[[{rel[:-3]}]]" for _, rel in moves] + _day_links(spoken),
        "tags": ["synthesized"],
    }, _title(last.day) + _intro(spoken, moves, method) + body)
    return Plan(path, notes.dumps(note), spoken, last, moves, method, guard, refusal)


def pending_turns(memory: Memory, mark: pressure.Mark | None, progress=None) -> list[Turn]:
    """Every turn after ``mark``, oldest first."""
    spans = pressure.pending(memory, mark)
    turns: list[Turn] = []
    for done, (relpath, data) in enumerate(spans, 1):
        turns += journal.parse(data.decode("utf-8"), relpath)
        if progress:
            progress(done, len(spans))
    return turns


def superseded(memory: Memory) -> list[str]:
    """The syntheses now in system/synthesized/ (notes with a ``through``), which the new one replaces."""
    folder = memory.root / FOLDER
    found = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
        if notes.peek(path, "through").get("through"):
            found.append(memory.rel(path))
    return found


# -- the extractive essence ---------------------------------------------------------------

def extractive_essence(turns: list[Turn], previous: list[notes.Note], limits: dict,
                       moved: list[str] = (), written: list[Item] = ()) -> str:
    """Facts first, each cited: decisions, commitments, dates and times, numbers, preferences,
    what was said of people; then the best-connected rest; then the names, as an index.
    The superseded syntheses' lines are carried forward, those a newer line contradicts
    marked as superseded; what does not fit is counted, and ``moved`` notes keep it.
    ``written`` are a model's lines that passed the guard: each replaces the extractive
    lines it covers, and the extractive facts it dropped are kept beside it."""
    carried, carried_names = carry(previous)
    freq = extractive.frequencies([*(t.text for t in turns), *(item.text for item in carried)])
    for item in carried:
        item.score = extractive.score(item.text, freq)
    fresh = candidates(turns, freq, carried)
    if written:
        fresh = [item for item in fresh if not any(_covers(line, item) for line in written)] + list(written)
    supersede(carried + fresh)
    facts_cost = sum(tokens.for_model(item.line(), limits) for item in fresh if item.weight >= FACT_WEIGHT)
    budget = _budget(turns, previous, limits, facts_cost)
    chosen = select(carried + fresh, budget, limits)
    spent = sum(tokens.for_model(item.line(), limits) for item in chosen)
    out = []
    for kind, title in SECTIONS.items():
        lines = [item.line() for item in sorted(chosen, key=lambda i: i.order) if item.kind == kind and not item.superseded_by]
        if lines:
            out += [f"## {title}", "", *lines, ""]
    old = [item.line() for item in sorted(chosen, key=lambda i: i.order) if item.superseded_by]
    if old:
        out += [f"## {SUPERSEDED}", "", *old, ""]
    left = sum(1 for item in carried if item not in chosen)
    if left:
        where = ", ".join(f"[[{path[:-3]}]]" for path in moved) or "the archive"
        out += [f"_{left} line{'s' if left > 1 else ''} of the superseded synthesis did not fit; {where} keeps "
                f"{'them' if left > 1 else 'it'}._", ""]
    names = _names(carried_names, turns)
    room = max(budget - spent, budget // 10)
    index = _index(names, room, limits)
    if index:
        out += ["## Names", "", *index, ""]
    return "\n".join(out)


def candidates(turns: list[Turn], freq, carried: list[Item] = ()) -> list[Item]:
    """Every sentence of the turns, read as a fact and scored against ``freq``; repeats merged,
    with each other and with the ``carried`` lines that say the same."""
    found: dict[str, Item] = {_key(item.text): item for item in carried if not item.superseded_by}
    known = set(found)
    for i, turn in enumerate(turns):
        for j, sentence in enumerate(extractive.sentences(turn.text)):
            said = facts.read(sentence, turn.role, extractive.names(sentence))
            if said.kind == "essence" and (said.weight < 0 or len(extractive.content_words(sentence)) < 3):
                continue
            key = _key(sentence)
            if key in found:
                if _link(turn) not in found[key].links and len(found[key].links) < 3:
                    found[key].links.append(_link(turn))
                continue
            found[key] = Item(said.kind, extractive.clip(sentence, 300), [_link(turn)], (1, i, j),
                              extractive.score(sentence, freq), said.weight, said.values,
                              facts.subject(sentence, said.values))
    return [item for key, item in found.items() if key not in known]


def _key(sentence: str) -> str:
    return " ".join(extractive.TOKEN.findall(sentence.casefold()))


_CHANGE = re.compile(r"\b(?:now|moved|changed?|instead|actually|update[ds]?|no\s+longer|not\s+anymore|new|"
                     r"postponed|rescheduled|pushed|switch(?:ed)?|revised|correction|scratch\s+that|rather)\b", re.IGNORECASE)


def supersede(items: list[Item]) -> None:
    """Mark each fact that a later one replaces: the same subject, other values, and (unless
    the subjects are nearly the same) words that say it changed."""
    facts_so_far: list[Item] = []
    for item in sorted(items, key=lambda i: i.order):
        if item.kind == "essence" or item.superseded_by:
            continue
        if item.values and item.subject:
            changed = _CHANGE.search(item.text) is not None
            for old in facts_so_far:
                if old.superseded_by or not old.values or set(item.values) <= set(old.values):
                    continue
                shared = len(item.subject & old.subject)
                overlap = shared / len(item.subject | old.subject)
                if (changed and shared >= 2 and overlap >= 0.34) or (shared >= 3 and overlap >= 0.7):
                    old.superseded_by = item.links[0]
                    _echoes(old, facts_so_far)
        facts_so_far.append(item)


def _echoes(old: Item, earlier: list[Item]) -> None:
    """Lines that only repeated a superseded fact ("Noted, Thursday at 14:30.") go with it."""
    for echo in earlier:
        if (not echo.superseded_by and echo.values and set(echo.values) <= set(old.values)
                and echo.subject <= old.subject):
            echo.superseded_by = old.superseded_by


def select(items: list[Item], budget: int, limits: dict) -> list[Item]:
    """The weightiest items that fit the budget: facts first (carried ones before new ones of
    the same weight), superseded lines after the facts, the rest by how connected they are."""
    def rank(item: Item):
        weight = min(item.weight, 1) if item.superseded_by else item.weight
        return (-weight, not item.carried, -item.score, item.order)

    chosen, spent = [], 0
    for item in sorted(items, key=rank):
        cost = tokens.for_model(item.line(), limits)
        if spent + cost <= budget:
            chosen.append(item)
            spent += cost
    return chosen


_BULLET = re.compile(r"^- (?:~~(.+?)~~|(.+?))(?: \(((?:\[\[[^\]]+\]\](?:, )?)+)\))?(?: → (\[\[[^\]]+\]\]))?$")


def carry(previous: list[notes.Note]) -> tuple[list[Item], list[str]]:
    """What the superseded syntheses held: their lines, weighed again with the new, and their names.
    Sections and list items are read by markdown-it (``language.markdown``), so a fence is no section."""
    from souveraine.language import markdown

    items, names = [], []
    for n, note in enumerate(previous):
        rows = note.body.splitlines()
        for section in markdown.sections(note.body, level=2)[1:]:
            title = section.heading.text
            kind = ("names" if title == "Names" else SUPERSEDED if title == SUPERSEDED else OLD_TITLES.get(title)
                    or next((key for key, t in SECTIONS.items() if t == title), "essence"))
            chunk = "\n".join(rows[section.start:section.end])
            if kind == "names":
                names += [name for row in chunk.splitlines() for name in _index_names(row)]
                continue
            for entry in markdown.items(chunk):
                bullet = _BULLET.match("- " + " ".join(entry.text.split()))
                if not bullet:
                    continue
                text = bullet[1] or bullet[2]
                links = re.findall(r"\[\[[^\]]+\]\]", bullet[3] or "")
                said = facts.read(text, "assistant", extractive.names(text))
                item = Item(said.kind if kind == SUPERSEDED else kind, text, links, (0, n, section.start + entry.line),
                            weight=said.weight, values=said.values, subject=facts.subject(text, said.values),
                            superseded_by=bullet[4], carried=True)
                if kind != SUPERSEDED:
                    item.weight = max(item.weight, facts.WEIGHT[kind])
                items.append(item)
    return items, names


def _index_names(line: str) -> list[str]:
    """The names an index line holds: "- Name ([[link]])" (older syntheses) or "A · B · C"."""
    bullet = re.match(r"^- (.+?)(?: \(\[\[[^\]]+\]\]\))?$", line)
    if bullet:
        return [bullet[1]]
    return [part.strip() for part in line.split(" · ") if part.strip() and not line.startswith("_")]


def _names(carried: list[str], turns: list[Turn]) -> list[str]:
    """Every name, the superseded syntheses' first, in the order they came."""
    found: dict[str, None] = dict.fromkeys(carried)
    lowercase = set().union(*(extractive.lowercase_words(t.text) for t in turns))
    for turn in turns:
        for name in extractive.names(turn.text, lowercase):
            found.setdefault(name, None)
    return extractive.distinct(list(found))[:MOST_NAMES]


def _index(names: list[str], room: int, limits: dict) -> list[str]:
    """The names on one line, as many as ``room`` tokens hold, and how many more there were."""
    shown: list[str] = []
    for name in names:
        if tokens.for_model(" · ".join([*shown, name]), limits) > room:
            break
        shown.append(name)
    if not shown:
        return []
    more = len(names) - len(shown)
    return [" · ".join(shown)] + ([f"_and {more} more in the archive._"] if more else [])


def _budget(turns: list[Turn], previous: list[notes.Note], limits: dict, facts_cost: int = 0) -> int:
    """What the old essence took, plus a share of the new turns (or what their facts take, when
    that is more: facts are not dropped for a share), within a share of the context."""
    held = tokens.for_model("\n".join(n.body for n in previous), limits)
    new = tokens.for_model("\n".join(t.text for t in turns), limits)
    wanted = held + max(int(new * SOURCE_SHARE), facts_cost)
    return min(int(limits["context_limit"] * BUDGET_SHARE), max(MIN_BUDGET, wanted))


# -- the model's essence ------------------------------------------------------------------

def model_lines(turns: list[Turn], limits: dict, endpoint: inference.Endpoint, progress=None) -> tuple[list[Item], dict]:
    """The model's facts for the turns, chunk by chunk, each line through the guard; and what
    the guard made of them. An endpoint that fails raises InferenceError before anything is written."""
    client = inference.Client(endpoint)
    sized = inference.budget(endpoint, "archivist")
    room = sized.prompt_chars - len(SYSTEM_PROMPT) - len(USER_PROMPT)
    by_id = {t.block_id: t for t in turns}
    place = {t.block_id: n for n, t in enumerate(turns)}
    window = {t.block_id: t.text for t in turns}
    chunks = _chunks(turns, max(2000, min(CHUNK_CHARS, room)))
    items, kept, refused, reasons = [], 0, 0, []
    for done, chunk in enumerate(chunks, 1):
        try:
            most = _answer_tokens(chunk, sized.max_tokens)
            answer = client.ask(SYSTEM_PROMPT.format(words=int(most * 0.6)), USER_PROMPT.format(turns=chunk), max_tokens=most)
        except inference.InferenceError as exc:
            if exc.code not in inference.ANSWER_FAILURES:
                raise
            refused, reasons = refused + 1, reasons + [_UNFINISHED if exc.code == "inference_truncated" else "empty answers"]
            continue
        for kind, lines in _sections(answer).items():
            verdict = guard.check(lines, window, facts=True)
            kept, refused = kept + len(verdict.kept), refused + len(verdict.refused)
            reasons += [why for _, why in verdict.refused]
            for text, ids in verdict.kept:
                first = min(place[i] for i in ids)
                said = facts.read(text, "assistant", extractive.names(text))
                items.append(Item(kind, extractive.clip(text, 300), [_link(by_id[i]) for i in ids[:3]],
                                  (1, first, 0), weight=max(said.weight, facts.WEIGHT[kind]),
                                  values=said.values, subject=facts.subject(text, said.values)))
        if progress:
            progress(done, len(chunks))
    if not items and not refused:
        reasons = ["no section of facts"]
        refused = 1
    counts = {why: reasons.count(why) for why in dict.fromkeys(reasons)}
    why = "; ".join(f"{n} {w}" for w, n in sorted(counts.items(), key=lambda kv: -kv[1])[:3])
    return items, {"kept": kept, "refused": refused, "share": kept / (kept + refused) if kept + refused else 0.0,
                   "why": why}


_UNFINISHED = "answers cut at max_tokens"


def _answer_tokens(chunk: str, most: int) -> int:
    """A list of a chunk's facts is shorter than the chunk: half its tokens, at least 256,
    at most the task's share of the context. A model that runs on past it is refused anyway."""
    return min(most, max(256, int(len(chunk) / inference.CHARS_PER_TOKEN / 2)))
_HEADING = re.compile(r"^\s*(?:#{1,6}\s*|\*\*)?\s*(decisions?|commitments?|promises?|dates?(?:\s+and\s+times?)?|times?|"
                      r"numbers?|preferences?|people|persons?)\s*(?:\*\*)?\s*:?\s*$", re.IGNORECASE)
_KINDS = {"decision": "decision", "commitment": "commitment", "promise": "commitment", "date": "date", "time": "date",
          "number": "number", "preference": "preference", "people": "person", "person": "person"}


def _sections(answer: str) -> dict[str, list[str]]:
    """The bullets of each recognised section of a model's answer; lines outside one are not facts."""
    found: dict[str, list[str]] = {}
    kind = None
    for line in answer.splitlines():
        heading = _HEADING.match(line)
        if heading:
            word = heading[1].lower().split()[0].rstrip("s") if heading[1].lower() != "people" else "people"
            kind = _KINDS.get(word, _KINDS.get(word.rstrip("e"), None))
            continue
        if line.lstrip().startswith("#"):
            kind = None
            continue
        if kind and re.match(r"^\s*(?:[-*+]|\d+[.)])\s+\S", line):
            found.setdefault(kind, []).append(line.strip())
    return found


def _covers(line: Item, item: Item) -> bool:
    """Does a model's line say what an extractive line says (same turn, its values, its subject)?"""
    if not set(line.links) & set(item.links):
        return False
    if item.values:
        return set(item.values) <= set(line.values) or all(v.casefold() in line.text.casefold() for v in item.values)
    shared = len(item.subject & line.subject)
    return shared >= 2 and shared / len(item.subject) >= 1 / 3


def _chunks(turns: list[Turn], room: int = CHUNK_CHARS) -> list[str]:
    """The turns as the model reads them, ``room`` characters a chunk. The day stands once
    above its turns and a turn's id already holds its time: per turn, the id and the role
    are all the model needs to cite it (prompt reading is most of a local model's time)."""
    chunks, current, size, day = [], [], 0, None
    for turn in turns:
        line = f"^{turn.block_id} {turn.role}: {turn.text}"
        if current and size + len(line) > room:
            chunks.append("\n".join(current))
            current, size, day = [], 0, None
        if turn.day != day:
            day = turn.day
            heading = f"{'' if not current else chr(10)}## {day:%A} {day.isoformat()}"
            current.append(heading)
            size += len(heading)
        current.append(line[:room])
        size += len(line) + 1
    return chunks + (["\n".join(current)] if current else [])


# -- the note -----------------------------------------------------------------------------

def _title(day: date) -> str:
    return f"# Essence through {day:%A} {day.day} {day:%B %Y}\n\n"


def _intro(turns: list[Turn], moves: list[tuple[str, str]], method: str) -> str:
    how = "the extractive method" if method == "extractive" else f"the model {method}"
    also = "".join(f", with the synthesis it supersedes, [[{new[:-3]}]]" for _, new in moves)
    return (f"The archivist's synthesis of {len(turns)} turns, {_link(turns[0])} to {_link(turns[-1])}{also}; "
            f"made by {how}. The raw journal is kept whole.\n\n")


def _link(turn: Turn) -> str:
    """A link to a turn without its alias: a synthesis is read at every wake, so it is kept short."""
    return f"[[{turn.path[:-3]}#^{turn.block_id}]]"


def _day_links(turns: list[Turn]) -> list[str]:
    return [f"[[{path[:-3]}]]" for path in dict.fromkeys(t.path for t in turns)]


def _first_day(previous: list[notes.Note]) -> date | None:
    days = [clock.as_day(n.get("from")) for n in previous]
    return min((d for d in days if d), default=None)


def _free(memory: Memory, relpath: str) -> str:
    stem, n = relpath[:-3], 2
    while (memory.root / relpath).exists():
        relpath, n = f"{stem}-{n}.md", n + 1
    return relpath


def _write(change, plan: Plan) -> None:
    # Composed without the lock (a model may take its time): another synthesis written
    # meanwhile would be superseded twice. Checked again under the lock.
    if superseded(change.memory) != [old for old, _ in plan.moves]:
        from souveraine.errors import Refused

        raise Refused("another synthesis was written while this one was composed; nothing was written — "
                      "run 'souveraine archive' again", code="archive_raced")
    if plan.refusal:
        from souveraine.tempos import innervoice

        innervoice.append(change, [innervoice.Thought(clock.now().replace(tzinfo=None), "medium", plan.refusal)])
    for old, new in plan.moves:
        change.write(new, change.memory.path(old).read_bytes())
        change.delete(old)
    change.write(plan.path, plan.text)
    own.synthesized(change.memory, plan.path, plan.last)


def _estimate(memory: Memory, before: pressure.Pressure, plan: Plan, limits: dict) -> pressure.Pressure:
    """The pressure the plan would leave: its note in place of the ones it moves, no pending journal."""
    moved = sum(memory.path(old).stat().st_size for old, _ in plan.moves)
    pinned = before.pinned_tokens + tokens.from_size(len(plan.text.encode("utf-8")) - moved, limits)
    return pressure.Pressure(before.model, pinned, 0, before.context_limit, before.threshold, 0, before.interval)
