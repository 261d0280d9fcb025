"""The N+1 subconscious: after every answer, persist, complete, verify, surface.

``persist(memory, exchange)`` runs, while the conversation is still warm:

1. **Persist** — the user's and the assistant's turns appended to the day's journal,
   through ``store.journal`` (block ids, time, role, session, the words unchanged).
2. **Complete** — promises in the answer (``tempos.promises``). A promise to save or
   remember that the turn did not keep is kept now: the memory is written, as
   ``remember`` would. Any other promise not kept goes to ledger/commitments.md as open,
   and becomes an inbox item. Open commitments that this answer keeps are closed.
3. **Verify** — questions the answer seems to have missed (``tempos.answered``), and
   assumptions made without checking (to ledger/assumptions.md).
4. **Surface** — what was noticed, as inner-voice lines and inbox items.

All of it is one commit (``chore(journal): …``), or none with ``commit=False``: the files
stay written, their paths are listed in ``.souveraine/uncommitted.json``, and the next
committing persist (or ``flush``) includes them. It counts messages since the last
reflection and synthesis and reports whether either is due; it does not run them.
"""

import json
import re
from dataclasses import dataclass, field
from datetime import datetime

from souveraine.errors import UsageError
from souveraine.store import clock, journal
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory
from souveraine.tempos import counters, inbox, innervoice, ledger, promises
from souveraine.tempos.innervoice import Thought
from souveraine.tempos.transcripts import Exchange

UNCOMMITTED = "uncommitted.json"
_URGENT = re.compile(r"\b(?:asap|urgent|urgently|right away|immediately|today|tonight|by end of day|eod)\b", re.I)
_ASSUMPTION = re.compile(r"\b(?:i(?:'m| am) assuming|i assume|i'll assume|i will assume|assuming that|presumably|"
                         r"i take it)\b", re.I)


@dataclass
class PersistResult:
    turns: list[dict] = field(default_factory=list)
    duplicate: bool = False
    n1: bool = True
    promises: list[dict] = field(default_factory=list)
    closed: list[dict] = field(default_factory=list)
    assumptions: list[dict] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    thoughts: list[dict] = field(default_factory=list)
    inbox: list[dict] = field(default_factory=list)
    since_reflection: int = 0
    since_archive: int = 0
    reflection_due: bool = False
    archive_due: bool = False
    ran: dict = field(default_factory=dict)
    commit: str | None = None
    uncommitted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def persist(memory: Memory, exchange: Exchange, *, commit: bool = True, n1: bool | None = None) -> PersistResult:
    """Journal one exchange and let the subconscious work on it; see the module's docstring."""
    exchange.check()
    section = memory.config["subconscious"]
    result = PersistResult()
    result.n1 = bool(section["n1_enabled"]) and (n1 if n1 is not None else section["n1_trigger"] != "manual")
    with memory.lock():
        counts = counters.load(memory)
        batch = _batched(memory) if commit else []
        with memory.change("chore(journal): persist", commit=commit) as change:
            for relpath in batch:
                change.touched(relpath)
            turns, newest = _journal(change, exchange)
            result.turns = [_turn_dict(t) for t in turns]
            result.duplicate = not turns
            thoughts, items = [], []
            if result.n1 and turns:
                _subconscious(change, exchange, turns, result, thoughts, items)
            counters.advance(memory, counts, turns, newest)
            thoughts += _due(memory, counts, result, len(turns), _now(exchange))
            thoughts += _run_due(change, result, _now(exchange))
            if result.n1:
                innervoice.append(change, thoughts)
                result.thoughts = [t.to_dict() for t in thoughts]
            if result.n1 and inbox.enabled(memory):
                result.inbox = [i.to_dict() for i in inbox.queue(change, items)]
            change.message = _message(turns, exchange, result)
        result.commit = change.sha
        counters.save(memory, counts)
        result.uncommitted = _record_batch(memory, [] if commit else batch_paths(memory) + change.paths)
    return result


def flush(memory: Memory) -> dict:
    """Commit what earlier ``persist --no-commit`` calls left written."""
    with memory.lock():
        batch = _batched(memory)
        with memory.change(f"chore(journal): persist {len(batch)} batched file(s)") as change:
            for relpath in batch:
                change.touched(relpath)
        _record_batch(memory, [])
    return {"files": batch, "commit": change.sha}


# -- 1. persist -------------------------------------------------------------------------

def _now(exchange: Exchange) -> datetime:
    return (exchange.at or clock.now()).astimezone(clock.now().tzinfo)


def _journal(change, exchange: Exchange) -> tuple[list[journal.Turn], str | None]:
    """Append the exchange's turns.

    A turn whose time was given and which is already there (same time, role, session,
    words) is skipped: a hook retried, or a transcript read twice, journals nothing twice.
    """
    at = _now(exchange)
    user_at = exchange.user_at.astimezone(at.tzinfo) if exchange.user_at else at
    said = [("user", exchange.user, user_at, exchange.user_at or exchange.at)] if exchange.user is not None else []
    if exchange.tool_calls:
        said.append(("tool", "\n".join(f"- {call}" for call in exchange.tool_calls), at, exchange.at))
    said.append(("assistant", exchange.assistant, at, exchange.at))
    turns, texts, newest = [], {}, None
    for role, text, when, given in said:
        relpath = journal.day_path(when.date())
        if relpath not in texts:
            full = change.memory.path(relpath)
            texts[relpath] = full.read_text(encoding="utf-8") if full.exists() else None
        existing = texts[relpath] or ""
        taken = journal.block_ids(existing)
        if given and _already(existing, relpath, journal.block_id(when, role, text, exchange.session), taken, role, text):
            continue
        block = journal.block_id(when, role, text, exchange.session, taken)
        chunk = journal.render(when, role, text, exchange.session, block)
        if texts[relpath] is None:
            change.write(relpath, journal.header(when.date()) + chunk)
            texts[relpath] = journal.header(when.date()) + chunk
        else:
            change.append(relpath, chunk)
            texts[relpath] += chunk
        turns.append(journal.Turn(block, when.replace(tzinfo=None), role, exchange.session,
                                  text.replace("\r\n", "\n").strip("\n"), relpath))
        if newest is None or relpath > newest:
            newest = relpath
    return turns, newest


def _already(existing: str, relpath: str, base: str, taken: set[str], role: str, words: str) -> bool:
    if base not in taken:
        return False
    words = words.replace("\r\n", "\n").strip("\n")
    return any(t.block_id == base and t.role == role and t.text == words for t in journal.parse(existing, relpath))


def source(turn: journal.Turn) -> str:
    """The plain link a memory's ``source`` property holds."""
    return f"[[{turn.path[:-3]}#^{turn.block_id}]]"


def _turn_dict(turn: journal.Turn) -> dict:
    return {"role": turn.role, "block_id": turn.block_id, "path": turn.path, "link": source(turn),
            "at": turn.at.isoformat() if turn.at else None, "session": turn.session}


# -- 2–4. complete, verify, surface ------------------------------------------------------

def _subconscious(change, exchange: Exchange, turns, result: PersistResult, thoughts: list, items: list) -> None:
    answer = next((t for t in turns if t.role == "assistant"), None)
    if answer is None:
        return
    asked = next((t for t in turns if t.role == "user"), None)
    now = _now(exchange)
    _close_kept(change, exchange, answer, result, thoughts, now)
    _complete(change, exchange, answer, asked, result, thoughts, items, now)
    _verify(change, exchange, answer, result, thoughts, now)


def _close_kept(change, exchange, answer, result, thoughts, now) -> None:
    kept = {}
    for entry in ledger.entries(change.memory, "commitments", open_only=True):
        found = promises.read(entry.text)
        if found and promises.keeps(found[0], found[1], entry.text, exchange.assistant, exchange.tool_calls):
            kept[entry.id] = entry
    if not kept:
        return
    closed = ledger.end(change, "commitments", set(kept), by=answer.link)
    inbox.withdraw(change, {_inbox_id(e.id) for e in closed})
    for entry in closed:
        result.closed.append(entry.to_dict())
        thoughts.append(Thought(now, "low", f'Kept: "{entry.text}" ({_when(entry.source)}) — closed {entry.link}.'))


def _complete(change, exchange, answer, asked, result, thoughts, items, now) -> None:
    saved = False
    for promise in promises.find(exchange.assistant):
        rest = exchange.assistant[promise.end:]
        record = promise.to_dict()
        if promises.keeps(promise.kind, promise.verb, promise.sentence, rest, exchange.tool_calls, same_turn=True):
            record["status"] = "kept"
        elif promise.kind == "save":
            if saved and not promise.content:
                record["status"] = "saved"
            else:
                record.update(_keep_save(change, exchange, promise, answer, asked, thoughts, now))
                saved = True
        else:
            record.update(_open_commitment(change, promise, answer, thoughts, items, now))
        result.promises.append(record)


def _keep_save(change, exchange, promise, answer, asked, thoughts, now) -> dict:
    from souveraine.identity.memories import remember

    if promise.content:
        words, origin = promise.content[0].upper() + promise.content[1:] + ".", answer
    elif asked is not None:
        words, origin = exchange.user, asked
    else:
        words, origin = exchange.assistant, answer
    made = remember(change.memory, words, change=change, source=source(origin))
    note = made["path"][:-3]
    thoughts.append(Thought(now, "low", f'Kept the promise "{promise.sentence}": saved it as [[{note}]].'))
    return {"status": "saved", "memory": made}


def _open_commitment(change, promise, answer, thoughts, items, now) -> dict:
    entry = ledger.add(change, "commitments", promise.sentence, promise.kind, answer.link)
    if entry is None:
        return {"status": "open"}
    text = f'Unfulfilled promise: "{entry.text}" from {answer.at:%H:%M}'
    urgency = "high" if _URGENT.search(promise.sentence) else "medium"
    thoughts.append(Thought(now, urgency, f"{text} — {entry.link}"))
    items.append(inbox.new_item(text, urgency, now, id=_inbox_id(entry.id)))
    return {"status": "open", "id": entry.id, "link": entry.link}


def _verify(change, exchange, answer, result, thoughts, now) -> None:
    from souveraine.tempos.answered import unanswered

    for question in unanswered(exchange.user, exchange.assistant):
        result.unanswered.append(question)
        thoughts.append(Thought(now, "medium", f'The question "{question}" may have gone unanswered.'))
    from souveraine.language.sentences import texts

    for sentence in texts(exchange.assistant):
        if _ASSUMPTION.search(sentence):
            entry = ledger.add(change, "assumptions", sentence, "assumption", answer.link)
            if entry:
                result.assumptions.append(entry.to_dict())
                thoughts.append(Thought(now, "low", f'Assumed without checking: "{entry.text}" — {entry.link}'))


def _inbox_id(entry_id: str) -> str:
    return "i" + entry_id[1:]


def _when(link: str) -> str:
    match = re.search(r"\|([^\]]+)\]\]", link)
    return match[1] if match else link


# -- tempo bookkeeping -------------------------------------------------------------------

def _due(memory: Memory, counts, result: PersistResult, added: int, now: datetime) -> list[Thought]:
    config = memory.config
    every_reflection = config["reflection"]["message_interval"]
    every_archive = config["archivist"]["interval"]
    result.since_reflection, result.since_archive = counts.reflection, counts.archive
    result.reflection_due = bool(config["reflection"]["enabled"]) and every_reflection > 0 and counts.reflection >= every_reflection
    result.archive_due = bool(config["archivist"]["enabled"]) and every_archive > 0 and counts.archive >= every_archive
    thoughts = []
    if result.reflection_due and counts.reflection - added < every_reflection:
        thoughts.append(Thought(now, "low", f"Reflection is due: {counts.reflection} messages since the last."))
    if result.archive_due and counts.archive - added < every_archive:
        thoughts.append(Thought(now, "medium", f"The archivist is due: {counts.archive} messages since the last synthesis."))
    return thoughts


def _run_due(change, result: PersistResult, now: datetime) -> list[Thought]:
    """Run the tempos whose interval has come, inside this persist's commit.

    A local model that fails does not lose the turn: the tempo stays due, and the
    inner voice says why.
    """
    if not (result.reflection_due or result.archive_due):
        return []
    from souveraine.inference.client import InferenceError
    from souveraine.tempos import archive, reflect

    thoughts = []
    for name, due, tempo in (("reflection", result.reflection_due, reflect), ("archive", result.archive_due, archive)):
        if not due:
            continue
        try:
            result.ran[name] = tempo.run(change.memory, change=change)
        except InferenceError as exc:
            thoughts.append(Thought(now, "medium", f"The {name} is due but the local model failed: {exc}"))
    return thoughts


def _message(turns, exchange: Exchange, result: PersistResult) -> str:
    if not turns:
        return "chore(journal): persist batched turns"
    where = f" of session {exchange.session}" if exchange.session else ""
    extra = []
    if result.promises:
        extra.append(f"{len(result.promises)} promise{'s' if len(result.promises) > 1 else ''}")
    if result.closed:
        extra.append(f"{len(result.closed)} kept")
    tail = f" ({', '.join(extra)})" if extra else ""
    return f"chore(journal): persist {len(turns)} turn{'s' if len(turns) > 1 else ''} at {turns[-1].at:%H:%M}{where}{tail}"


# -- batching ----------------------------------------------------------------------------

def batch_paths(memory: Memory) -> list[str]:
    try:
        paths = json.loads((memory.cache / UNCOMMITTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def _batched(memory: Memory) -> list[str]:
    paths = []
    for relpath in batch_paths(memory):
        try:
            memory.path(relpath)
        except UsageError:
            continue
        paths.append(relpath)
    return paths


def _record_batch(memory: Memory, paths: list[str]) -> list[str]:
    paths = sorted(set(paths))
    target = memory.cache / UNCOMMITTED
    if paths:
        atomic_write(target, json.dumps(paths, indent=1) + "\n")
    else:
        target.unlink(missing_ok=True)
    return paths
