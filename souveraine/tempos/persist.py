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

Before any of it, the exchange is written to the spool (``store.spool``: fsynced, under
``.souveraine/spool/``), its time fixed. Then, under the memory's lock, every exchange
waiting there up to this one is journaled, oldest first, and all of it is one commit
(``chore(journal): …``). When the commit cannot happen now — the lock busy, git's index
locked, a merge in progress, a refused commit — the exchange stays in the spool and the
result says ``kept``; ``commit=False`` keeps it there on purpose. The next persist (or
``flush``) commits it. It counts messages since the last reflection and synthesis, and
once the commit is made sets the due ones going off the turn's path (``tempos.followup``,
as ``[subconscious] tempos`` says: detached by default, inline, or left to the scheduler).
"""

import json
import re
from dataclasses import dataclass, field
from datetime import datetime

from souveraine.errors import SouveraineError, UsageError
from souveraine.language import patterns
from souveraine.store import clock, git, journal, spool
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory
from souveraine.sync import own
from souveraine.tempos import counters, followup, inbox, innervoice, ledger, promises
from souveraine.tempos.innervoice import Thought
from souveraine.tempos.transcripts import Exchange

UNCOMMITTED = "uncommitted.json"   # paths left written by --no-commit before the spool; committed by the next drain
_URGENT = patterns.compile(r"\b(?:asap|urgent|urgently|right away|immediately|today|tonight|by end of day|eod)\b", re.I)
_ASSUMPTION = patterns.compile(r"\b(?:i(?:'m| am) assuming|i assume|i'll assume|i will assume|assuming that|presumably|"
                         r"i take it)\b", re.I)
KEPT = "kept, not yet committed"
DEGRADE_AFTER = 1     # failed attempts after which a spooled exchange is journaled without the subconscious…
SET_ASIDE_AFTER = 2   # …and after which it waits in the spool for doctor to report


@dataclass
class PersistResult:
    turns: list[dict] = field(default_factory=list)
    duplicate: bool = False
    n1: bool = True
    promises: list[dict] = field(default_factory=list)
    closed: list[dict] = field(default_factory=list)
    assumptions: list[dict] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    corrections: list[dict] = field(default_factory=list)
    thoughts: list[dict] = field(default_factory=list)
    inbox: list[dict] = field(default_factory=list)
    since_reflection: int = 0
    since_archive: int = 0
    reflection_due: bool = False
    archive_due: bool = False
    ran: dict = field(default_factory=dict)
    people: list[str] = field(default_factory=list)   # people/ notes given a line
    commit: str | None = None
    kept: bool = False          # the exchange waits in the spool, durable, not yet committed
    reason: str = ""            # why it waits
    waiting: int = 0            # exchanges in the spool after this call

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def persist(memory: Memory, exchange: Exchange, *, commit: bool = True, n1: bool | None = None) -> PersistResult:
    """Keep the exchange durably, then journal and commit it; see the module's docstring.

    Once the exchange is in the spool nothing loses it: a busy lock, git's index locked,
    a merge in progress or a refused commit leave it there (``kept``), and the next
    command able to commit it does.
    """
    exchange.check()
    entry = spool.put(memory, _record(exchange, n1))
    if not commit:
        return _kept(memory, "--no-commit: the next persist (or persist --flush) commits it")
    return _commit(memory, entry.name)


def flush(memory: Memory, retry: bool = False) -> dict:
    """Journal and commit every exchange waiting in the spool (and what an older
    ``--no-commit`` left written), oldest first, in one commit. ``retry`` gives the
    exchanges that failed twice one more chance."""
    if retry:
        for entry in spool.entries(memory):
            if entry.attempts:
                spool.retry(entry)
    result = _commit(memory, None)
    return {"turns": len(result.turns), "commit": result.commit, "kept": result.kept, "reason": result.reason,
            "waiting": result.waiting}


def _commit(memory: Memory, own: str | None) -> PersistResult:
    """Drain the spool up to ``own`` (everything when None) under the lock, or say why not."""
    try:
        with memory.lock():
            why = blocked(memory)
            if why:
                return _kept(memory, why)
            result = _drain(memory, own)
    except SouveraineError as exc:   # whatever stops the commit, the exchange is already safe
        return _kept(memory, exc.message)
    due = [name for name, on in (("reflection", result.reflection_due), ("archive", result.archive_due)) if on]
    if due and result.commit:
        result.ran = followup.start(memory, due)
    return result


def blocked(memory: Memory) -> str | None:
    """Why nothing can be committed now (a merge under way, git's index locked), or None.
    An index.lock no live process holds is what a killed git left: it is removed."""
    operation = git.in_progress(memory.root)
    if operation:
        return f"a {operation} is in progress; {git.how_to_finish(operation)}, and the next persist commits it"
    found = git.index_lock(memory.root)
    if found is not None:
        lock, holder = found
        if holder is None:
            lock.unlink(missing_ok=True)
        else:
            who = f"pid {holder}" if holder > 0 else "a git process"
            return f"git is busy ({lock} is held by {who}); the next persist commits it"
    return None


def _kept(memory: Memory, reason: str) -> PersistResult:
    return PersistResult(kept=True, reason=reason, waiting=len(spool.entries(memory)))


def _record(exchange: Exchange, n1: bool | None) -> dict:
    """The exchange as the spool keeps it; its time fixed now, when it was said."""
    now = clock.now()
    return {"kind": "exchange", "received": now.isoformat(), "n1": n1, "attempts": 0,
            "given": exchange.at is not None,
            "exchange": {"user": exchange.user, "assistant": exchange.assistant, "session": exchange.session,
                         "at": (exchange.at or now).isoformat(),
                         "user_at": exchange.user_at.isoformat() if exchange.user_at else None,
                         "tool_calls": list(exchange.tool_calls)}}


def _exchange(record: dict) -> tuple[Exchange, bool]:
    data = record["exchange"]
    moment = lambda text: clock.parse_moment(text) if text else None  # noqa: E731
    exchange = Exchange(assistant=data["assistant"], user=data.get("user"), session=data.get("session"),
                        at=moment(data.get("at")), user_at=moment(data.get("user_at")),
                        tool_calls=tuple(data.get("tool_calls") or ()))
    return exchange, bool(record.get("given"))


class _Failed(Exception):
    def __init__(self, entry: spool.Entry, cause: BaseException):
        super().__init__(str(cause))
        self.entry, self.cause = entry, cause


def _drain(memory: Memory, own: str | None) -> PersistResult:
    """Journal the spooled exchanges up to ``own`` in one commit, and remove them from the spool.

    An exchange whose journaling raises is counted a failure, and the drain starts again
    without its partial writes: after one failure it is journaled without the subconscious,
    after two it stays in the spool for doctor to report. A failed commit keeps them all.
    """
    while True:
        waiting = spool.entries(memory, own)
        usable = [e for e in waiting if e.attempts < SET_ASIDE_AFTER]
        try:
            result = _drain_once(memory, usable, own)
        except _Failed as failed:
            spool.failed(failed.entry, f"{type(failed.cause).__name__}: {failed.cause}")
            continue
        if own is not None and not any(e.name == own for e in usable):
            stuck = next((e for e in waiting if e.name == own), None)
            result.kept = stuck is not None
            result.reason = f"it failed twice ({stuck.record.get('error')}); 'souveraine doctor' lists it" if stuck else ""
        result.waiting = len(spool.entries(memory))
        return result


def _drain_once(memory: Memory, entries: list[spool.Entry], own: str | None) -> PersistResult:
    batch = _batched(memory)
    counts = counters.load(memory)
    mine, everyone = PersistResult(), []
    with memory.change("chore(journal): persist") as change:
        for relpath in batch:
            change.touched(relpath)
        for entry in entries:
            try:
                result = _journal_entry(change, entry, counts)
            except Exception as exc:  # one exchange's trouble must not hold back the others'
                raise _Failed(entry, exc) from exc
            everyone.append(result)
            if entry.name == own or own is None:
                mine = result
        if everyone:
            last = everyone[-1]
            for name in ("since_reflection", "reflection_due"):
                setattr(mine, name, getattr(last, name))
            thoughts = _archive_due(memory, mine, sum(len(r.turns) for r in everyone), _now(None))
            thoughts += [Thought(_now(None), urgency, text) for urgency, text in followup.news(memory)]
            if thoughts:
                innervoice.append(change, thoughts)
                mine.thoughts += [t.to_dict() for t in thoughts]
        change.message = _message(everyone)
        change.intent.spooled([(e.name, [(t["path"], t["block_id"]) for t in r.turns]) for e, r in zip(entries, everyone)])
        change.then.append(lambda: spool.remove(memory, entries))
    if own is None:
        mine.turns = [t for r in everyone for t in r.turns]
    mine.commit = change.sha
    followup.told(memory)
    counters.save(memory, counts)
    _record_batch(memory, [])
    return mine


def _journal_entry(change, entry: spool.Entry, counts) -> PersistResult:
    """One spooled exchange: journal, then the subconscious; its own result."""
    memory = change.memory
    exchange, given = _exchange(entry.record)
    section = memory.config["subconscious"]
    requested = entry.record.get("n1")
    result = PersistResult()
    result.n1 = (bool(section["n1_enabled"]) and (requested if requested is not None else section["n1_trigger"] != "manual")
                 and entry.attempts < DEGRADE_AFTER)
    turns, newest = _journal(change, exchange, given)
    own.journaled(memory, turns)   # this device's to witness (sync.own)
    result.turns = [_turn_dict(t) for t in turns]
    result.duplicate = not turns
    thoughts, items = [], []
    if result.n1 and turns:
        _subconscious(change, exchange, turns, result, thoughts, items)
    counters.advance(memory, counts, turns, newest)
    thoughts += _due(memory, counts, result, len(turns), _now(exchange))
    if result.n1:
        innervoice.append(change, thoughts)
        result.thoughts = [t.to_dict() for t in thoughts]
    if result.n1 and inbox.enabled(memory):
        result.inbox = [i.to_dict() for i in inbox.queue(change, items)]
    return result


# -- 1. persist -------------------------------------------------------------------------

def _now(exchange: Exchange | None) -> datetime:
    at = exchange.at if exchange is not None else None
    return (at or clock.now()).astimezone(clock.now().tzinfo)


def _journal(change, exchange: Exchange, given: bool = True) -> tuple[list[journal.Turn], str | None]:
    """Append the exchange's turns.

    A turn whose time was given and which is already there (same time, role, session,
    words) is skipped: a hook retried, or a transcript read twice, journals nothing twice.
    ``given`` says whether the answer's time was given (a spooled exchange's time is
    always set: the moment it arrived).
    """
    at = _now(exchange)
    user_at = exchange.user_at.astimezone(at.tzinfo) if exchange.user_at else at
    answered = exchange.at if given else None
    said = [("user", exchange.user, user_at, exchange.user_at or answered)] if exchange.user is not None else []
    if exchange.tool_calls:
        said.append(("tool", "\n".join(f"- {call}" for call in exchange.tool_calls), at, answered))
    said.append(("assistant", exchange.assistant, at, answered))
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
    if asked is not None:
        _correct(change, exchange, asked, result, thoughts, now)
    _people(change, turns, result)


def _people(change, turns, result: PersistResult) -> None:
    """A cited line in the note of each person the exchange names (care.digest.note_people)."""
    from souveraine.care.digest import note_people

    result.people = note_people(change, turns)


def _close_kept(change, exchange, answer, result, thoughts, now) -> None:
    """Close the one open commitment this answer fulfils (``tempos.closures``), and any its tool calls kept."""
    from souveraine.tempos import closures

    open_entries = [e for e in ledger.entries(change.memory, "commitments", open_only=True) if e.source != answer.link]
    if not open_entries:
        return
    kept = {}
    texts = [e.text for e in open_entries]
    index, sure = closures.weigh(texts, exchange.assistant, exchange.tool_calls)
    if not sure and _model(change.memory):
        from souveraine.tempos import judge

        said = judge.closure(_model(change.memory), texts, exchange.assistant)
        index = index if said is ... else said
    if index is not None:
        kept[open_entries[index].id] = open_entries[index]
    for entry in open_entries:
        found = promises.read(entry.text)
        if found and exchange.tool_calls and promises.keeps(found[0], found[1], entry.text, "", exchange.tool_calls):
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
    local = now.replace(tzinfo=None)
    for promise in promises.find(exchange.assistant, now=local, context=exchange.user):
        rest = exchange.assistant[promise.end:]
        record = promise.to_dict()
        if not promise.claimed and promises.keeps(promise.kind, promise.verb, promise.sentence, rest,
                                                  exchange.tool_calls, same_turn=True):
            record["status"] = "kept"
        elif promise.kind == "save":
            if promise.claimed and any(promises._KEPT_TOOL["save"].search(c) for c in exchange.tool_calls):
                record["status"] = "kept"
            elif saved and not promise.content:
                record["status"] = "saved"
            else:
                record.update(_keep_save(change, exchange, promise, answer, asked, thoughts, now))
                saved = saved or record["status"] == "saved"
        else:
            record.update(_open_commitment(change, exchange, promise, answer, thoughts, items, now))
        result.promises.append(record)


def _keep_save(change, exchange, promise, answer, asked, thoughts, now) -> dict:
    """Write the fact a promise (or a claim) to save keeps, as one self-contained sentence (``tempos.facts``)."""
    from souveraine.identity.memories import remember
    from souveraine.tempos import facts

    words, said_by = facts.keep(promise, exchange.user, now.replace(tzinfo=None))
    if not words:
        thoughts.append(Thought(now, "low", f'"{promise.sentence}" promised to keep something, but the turn says '
                                            f"nothing to keep — {answer.link}"))
        return {"status": "nothing to save"}
    origin = asked if said_by == "user" and asked is not None else answer
    made = remember(change.memory, words, change=change, source=source(origin))
    note = made["path"][:-3]
    how = "the claim" if promise.claimed else "the promise"
    thoughts.append(Thought(now, "low", f'Kept {how} "{promise.sentence}": saved it as [[{note}]].'))
    return {"status": "saved", "memory": made, "text": words}


def _open_commitment(change, exchange, promise, answer, thoughts, items, now) -> dict:
    """An open ledger entry and its reminder: at once, or — a dated promise — waiting for its day."""
    from souveraine.language import speech

    due = promise.due
    if due is None and promise.verb in ("remind", "nudge") and exchange.user:
        asked = speech.request(exchange.user, now.replace(tzinfo=None))
        due = asked.when if asked else None
    when = _due_at(due) if due is not None else None
    stamp = f"{when:%Y-%m-%d %H:%M}" if when and due.timed else (f"{when:%Y-%m-%d}" if when else "")
    entry = ledger.add(change, "commitments", promise.sentence, promise.kind, answer.link, due=stamp)
    if entry is None:
        return {"status": "open"}
    if when is not None and when <= now.replace(tzinfo=None):
        when = None   # due already ("later today"): remind at once
    urgency = "high" if _URGENT.search(promise.sentence) or when else "medium"
    if when is None:
        text = f'Unfulfilled promise: "{entry.text}" from {answer.at:%H:%M}'
        thoughts.append(Thought(now, urgency, f"{text} — {entry.link}"))
    else:
        from souveraine.language.dates import describe

        text = f'Due {describe(due)}: "{entry.text}" (promised {answer.at:%Y-%m-%d %H:%M}) — {entry.link}'
        thoughts.append(Thought(now, "low", f'Promised for {describe(due)}: "{entry.text}" — {entry.link}'))
    items.append(inbox.new_item(text, urgency, now, id=_inbox_id(entry.id), due=when))
    return {"status": "open", "id": entry.id, "link": entry.link, **({"due": stamp} if stamp else {})}


DUE_HOUR = 8


def _due_at(mention) -> datetime:
    """When a dated promise's reminder may surface: its time, or the morning of its day."""
    if mention.timed:
        return mention.begins
    return mention.begins.replace(hour=DUE_HOUR, minute=0)


def _verify(change, exchange, answer, result, thoughts, now) -> None:
    from souveraine.language.sentences import texts
    from souveraine.tempos.answered import unanswered

    for question in unanswered(exchange.user, exchange.assistant):
        if _model(change.memory):
            from souveraine.tempos import judge

            if judge.answered(_model(change.memory), question, exchange.assistant) is True:
                continue
        result.unanswered.append(question)
        thoughts.append(Thought(now, "medium", f'The question "{question}" may have gone unanswered.'))
    for sentence in texts(exchange.assistant):
        if _ASSUMPTION.search(sentence):
            entry = ledger.add(change, "assumptions", sentence, "assumption", answer.link)
            if entry:
                result.assumptions.append(entry.to_dict())
                thoughts.append(Thought(now, "low", f'Assumed without checking: "{entry.text}" — {entry.link}'))


def _correct(change, exchange, asked, result, thoughts, now) -> None:
    """A correction or preference in the user's words amends its system/ file and enters the drift ledger."""
    from souveraine.tempos import corrections

    found = corrections.read(exchange.user)
    if found is None:
        return
    done = corrections.apply(change, found, source(asked), f"{asked.at:%Y-%m-%d}", now.replace(tzinfo=None))
    if done["line"]:
        result.corrections.append({**found.to_dict(), **done})
        thoughts.append(Thought(now, "low", f"Noted a {found.target} rule in [[{found.path[:-3]}]]: {found.text}"))


def _model(memory):
    """The judge's model client, made once per memory object; None without ``[inference]``."""
    if "judge" not in memory.__dict__:
        if not memory.config["inference"]["endpoint"].strip():
            memory.__dict__["judge"] = None      # no model: not even the client's module to import
            return None
        from souveraine.tempos import judge

        memory.__dict__["judge"] = judge.client(memory)
    return memory.__dict__["judge"]


def _inbox_id(entry_id: str) -> str:
    return "i" + entry_id[1:]


def _when(link: str) -> str:
    match = re.search(r"\|([^\]]+)\]\]", link)
    return match[1] if match else link


# -- tempo bookkeeping -------------------------------------------------------------------

def _due(memory: Memory, counts, result: PersistResult, added: int, now: datetime) -> list[Thought]:
    """Whether reflection is due, from the counts; a thought when this exchange crossed the interval."""
    section = memory.config["reflection"]
    every = section["message_interval"]
    result.since_reflection = counts.reflection
    result.reflection_due = bool(section["enabled"]) and every > 0 and counts.reflection >= every
    if result.reflection_due and counts.reflection - added < every:
        return [Thought(now, "low", f"Reflection is due: {counts.reflection} messages since the last.")]
    return []


def _archive_due(memory: Memory, result: PersistResult, added: int, now: datetime) -> list[Thought]:
    """Whether the archivist is due, by the very measure status shows (tempos.pressure): the
    pressure threshold and the interval in force, [archivist]'s or the model's."""
    from souveraine.tempos import pressure

    if not memory.config["archivist"]["enabled"]:
        return []
    measured = pressure.measure(memory)
    result.since_archive, result.archive_due = measured.messages, measured.due
    crossed = measured.interval > 0 and measured.messages - added < measured.interval <= measured.messages
    if result.archive_due and crossed:
        return [Thought(now, "medium", f"The archivist is due: {measured.messages} messages since the last synthesis.")]
    return []


def _message(results: list[PersistResult]) -> str:
    turns = [t for r in results for t in r.turns]
    if not turns:
        return "chore(journal): persist batched turns"
    sessions = {t["session"] for t in turns}
    session = sessions.pop() if len(sessions) == 1 else None
    where = f" of session {session}" if session else ""
    promised = sum(len(r.promises) for r in results)
    closed = sum(len(r.closed) for r in results)
    extra = []
    if promised:
        extra.append(f"{promised} promise{'s' if promised > 1 else ''}")
    if closed:
        extra.append(f"{closed} kept")
    exchanges = sum(1 for r in results if r.turns)
    if exchanges > 1:
        extra.append(f"{exchanges} exchanges")
    tail = f" ({', '.join(extra)})" if extra else ""
    last = max(turns, key=lambda t: t["at"] or "")["at"]
    return (f"chore(journal): persist {len(turns)} turn{'s' if len(turns) > 1 else ''} "
            f"at {datetime.fromisoformat(last):%H:%M}{where}{tail}")


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
