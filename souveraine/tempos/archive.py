"""archive (N+100): the archivist keeps the agent within its model's context.

Pressure (tempos.pressure) is what wake pins plus the journal not yet synthesized. When
it reaches the threshold, or every ``interval`` messages, the archivist compresses the
journal since the last synthesis — together with that synthesis, so nothing it held is
dropped from the wake — into one dense note in system/synthesized/, and moves the
superseded note, unchanged, to archive/. The raw journal is only read, never written.

The extractive method keeps, within a token budget, every sentence that carries a
decision, a promise or a date, then the best-connected others (Luhn's measure), and
lists every name with the turn that first said it; each line cites its turns. With an
endpoint configured, a local model rewrites the essence chunk by chunk from the prompt
below; the names are still listed by the extractive method, so none is lost.
"""

import re
from dataclasses import dataclass, field
from datetime import date

from souveraine.inference import client as inference
from souveraine.inference import extractive
from souveraine.store import clock, journal, notes, tokens
from souveraine.store.journal import Turn
from souveraine.store.memory import Memory
from souveraine.tempos import pressure
from souveraine.tempos.reflect import cite

FOLDER = pressure.SYNTHESIZED
ARCHIVE = "archive"
SPOKEN = ("user", "assistant")
SECTIONS = {"decision": "Decisions", "promise": "Promises", "date": "Dates", "essence": "Essence"}
PRIORITY = {"decision": 3, "promise": 3, "date": 2, "essence": 0}
BUDGET_SHARE = 0.05    # a synthesis takes at most this share of the model's context…
SOURCE_SHARE = 0.35    # …and of what it compresses,
MIN_BUDGET = 300       # but never fewer tokens than this.
MOST_NAMES = 200
CHUNK_CHARS = 12_000   # transcript sent to the model per request
SYSTEM_PROMPT = """You are the archivist of an AI agent's long-term memory. You compress raw \
conversation into dense essence the agent will read at every wake. Keep every decision, \
promise, date and name; drop pleasantries and repetition; invent nothing. Answer in Markdown \
with the sections ## Decisions, ## Promises, ## Dates, ## Essence, each a list of short \
bullet points, and end every bullet with the block ids of the turns it comes from, written \
like ^t143205u4a1f. Stay under {words} words."""
USER_PROMPT = """The essence so far:

{essence}

New turns, each shown as [^block-id · time · role]:

{turns}

Write the updated essence: the essence so far and the new turns together."""


@dataclass
class Item:
    kind: str
    text: str
    links: list[str]
    order: tuple
    score: float = 0.0

    def line(self) -> str:
        return f"- {self.text} ({', '.join(self.links)})" if self.links else f"- {self.text}"


@dataclass
class Plan:
    path: str
    text: str
    turns: list[Turn]      # the user and assistant turns compressed
    last: Turn             # the last turn covered, whatever its role
    moves: list[tuple[str, str]] = field(default_factory=list)
    method: str = "extractive"


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
    turns = pending_turns(memory, mark, progress if endpoint is None else None)
    spoken = [t for t in turns if t.role in SPOKEN]
    if not spoken:
        return None
    old = superseded(memory)
    previous = [notes.read(memory.root / path) for path in old]
    if endpoint is None:
        body, method = extractive_essence(spoken, previous, limits), "extractive"
    else:
        body, method = model_essence(spoken, previous, limits, endpoint, progress), endpoint.model
    moves = [(path, _free(memory, f"{ARCHIVE}/{path.rsplit('/', 1)[-1]}")) for path in old]
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
    return Plan(path, notes.dumps(note), spoken, last, moves, method)


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

def extractive_essence(turns: list[Turn], previous: list[notes.Note], limits: dict) -> str:
    carried, carried_names = carry(previous)
    freq = extractive.frequencies([*(t.text for t in turns), *(item.text for item in carried)])
    for item in carried:
        item.score = extractive.score(item.text, freq)
    items = carried + candidates(turns, freq)
    budget = _budget(turns, previous, limits)
    names = _names(carried_names, turns)
    budget -= tokens.for_model("\n".join(names), limits)
    chosen = select(items, budget, limits)
    out = []
    for kind, title in SECTIONS.items():
        lines = [item.line() for item in sorted(chosen, key=lambda i: i.order) if item.kind == kind]
        if lines:
            out += [f"## {title}", "", *lines, ""]
    if names:
        out += ["## Names", "", *names, ""]
    return "\n".join(out)


def candidates(turns: list[Turn], freq) -> list[Item]:
    """Every sentence of the turns, classified and scored against ``freq``; repeats merged."""
    found: dict[str, Item] = {}
    for i, turn in enumerate(turns):
        for j, sentence in enumerate(extractive.sentences(turn.text)):
            kind = extractive.kind(sentence)
            if kind == "essence" and len(extractive.content_words(sentence)) < 3:
                continue
            key = " ".join(extractive.TOKEN.findall(sentence.casefold()))
            if key in found:
                if _link(turn) not in found[key].links and len(found[key].links) < 3:
                    found[key].links.append(_link(turn))
                continue
            found[key] = Item(kind, extractive.clip(sentence, 300), [_link(turn)], (1, i, j),
                              extractive.score(sentence, freq))
    return list(found.values())


def select(items: list[Item], budget: int, limits: dict) -> list[Item]:
    """The weightiest items that fit the budget: decisions and promises, then dates, then the rest."""
    chosen, spent = [], 0
    for item in sorted(items, key=lambda i: (-PRIORITY[i.kind], -i.score, i.order)):
        cost = tokens.for_model(item.line(), limits)
        if spent + cost <= budget:
            chosen.append(item)
            spent += cost
    return chosen


_BULLET = re.compile(r"^- (.+?)(?: \(((?:\[\[[^\]]+\]\](?:, )?)+)\))?$")


def carry(previous: list[notes.Note]) -> tuple[list[Item], list[str]]:
    """What the superseded syntheses held: their items, weighed again with the new, and their names."""
    items, names = [], []
    for n, note in enumerate(previous):
        kind = None
        for k, line in enumerate(note.body.splitlines()):
            if line.startswith("## "):
                title = line[3:].strip()
                kind = "names" if title == "Names" else next((key for key, t in SECTIONS.items() if t == title), "essence")
                continue
            bullet = _BULLET.match(line)
            if not bullet or kind is None:
                continue
            if kind == "names":
                names.append(line)
                continue
            links = re.findall(r"\[\[[^\]]+\]\]", bullet[2] or "")
            items.append(Item(kind, bullet[1], links, (0, n, k)))
    return items, names


def _names(carried: list[str], turns: list[Turn]) -> list[str]:
    """Every name, the superseded syntheses' first, each with the turn that first said it."""
    lines: dict[str, str] = {}
    for line in carried:
        lines.setdefault(_BULLET.match(line)[1], line)
    lowercase = set().union(*(extractive.lowercase_words(t.text) for t in turns))
    for turn in turns:
        for name in extractive.names(turn.text, lowercase):
            lines.setdefault(name, f"- {name} ({_link(turn)})")
    return [lines[name] for name in extractive.distinct(list(lines))][:MOST_NAMES]


def _budget(turns: list[Turn], previous: list[notes.Note], limits: dict) -> int:
    """What the old essence took, plus a share of the new turns, within a share of the context."""
    held = tokens.for_model("\n".join(n.body for n in previous), limits)
    new = tokens.for_model("\n".join(t.text for t in turns), limits)
    return min(int(limits["context_limit"] * BUDGET_SHARE), max(MIN_BUDGET, held + int(new * SOURCE_SHARE)))


# -- the model's essence ------------------------------------------------------------------

def model_essence(turns: list[Turn], previous: list[notes.Note], limits: dict, endpoint: inference.Endpoint,
                  progress=None) -> str:
    """The essence rewritten by the model, one chunk of transcript at a time; names listed as ever."""
    client = inference.Client(endpoint)
    sized = inference.budget(endpoint, "archivist")
    words = min(int(_budget(turns, previous, limits) * limits["chars_per_token"] / 6), int(sized.max_tokens * 0.6))
    essence = "\n\n".join(_essence_only(n.body) for n in previous) or "(nothing yet)"
    room = sized.prompt_chars - len(SYSTEM_PROMPT) - len(USER_PROMPT) - len(essence)
    chunks = _chunks(turns, max(2000, min(CHUNK_CHARS, room)))
    for done, chunk in enumerate(chunks, 1):
        essence = _clean(client.ask(SYSTEM_PROMPT.format(words=words), USER_PROMPT.format(essence=essence, turns=chunk),
                                    max_tokens=sized.max_tokens))
        if progress:
            progress(done, len(chunks))
    names = _names(carry(previous)[1], turns)
    body = cite(essence, {t.block_id: _link(t) for t in turns})
    return body.rstrip() + "\n\n" + ("\n".join(["## Names", "", *names]) + "\n" if names else "")


def _chunks(turns: list[Turn], room: int = CHUNK_CHARS) -> list[str]:
    chunks, current, size = [], [], 0
    for turn in turns:
        line = f"[^{turn.block_id} · {turn.day} {turn.at:%H:%M} · {turn.role}] {turn.text}"
        if current and size + len(line) > room:
            chunks.append("\n\n".join(current))
            current, size = [], 0
        current.append(line[:room])
        size += len(line)
    return chunks + (["\n\n".join(current)] if current else [])


def _essence_only(body: str) -> str:
    """A synthesis body without its title, introduction and names: what the model rewrites."""
    kept, keep = [], False
    for line in body.splitlines():
        if line.startswith("## "):
            keep = line.strip() != "## Names"
        if keep:
            kept.append(line)
    return "\n".join(kept).strip()


def _clean(answer: str) -> str:
    """The model's Markdown without a wrapping code fence, a title, or lines the journal format reserves."""
    text = re.sub(r"^```[a-z]*\n|\n```\s*$", "", answer.strip())
    lines = [line for line in text.splitlines() if not line.startswith("# ") and line.strip() != "---"]
    return "\n".join(lines).strip()


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
    for old, new in plan.moves:
        change.write(new, change.memory.path(old).read_bytes())
        change.delete(old)
    change.write(plan.path, plan.text)


def _estimate(memory: Memory, before: pressure.Pressure, plan: Plan, limits: dict) -> pressure.Pressure:
    """The pressure the plan would leave: its note in place of the ones it moves, no pending journal."""
    moved = sum(memory.path(old).stat().st_size for old, _ in plan.moves)
    pinned = before.pinned_tokens + tokens.from_size(len(plan.text.encode("utf-8")) - moved, limits)
    return pressure.Pressure(before.model, pinned, 0, before.context_limit, before.threshold, 0, before.interval)
