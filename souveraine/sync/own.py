"""The turns this device journaled and has not yet witnessed or synthesized: its own to take in.

Two devices that share a memory each journal their own conversation; a merge sets their
turns among each other by time (sync.driver). Were each device's reflection to witness
"the turns since the last witness" in the file — and its archivist to synthesize "the
journal since the last synthesis" — a turn brought in by a merge would be taken in twice
(both devices read it before either saw the other's entry) or never (it landed before an
entry written meanwhile). So once a memory syncs, each device witnesses and synthesizes
its own turns only: every turn is taken in once, by the device that journaled it,
whatever the merges.

Which turns are a device's own cannot be read from the journal: the device keeps the
record, in its git folder (a clone does not copy it). Lines, in order:

- ``turn <day file> <block id>`` — persist journaled it here;
- ``witness <day file> <block id> <day file> <block id>`` — reflect wrote that witness of
  the turns through the second; it counts once its block is in its day file (committed);
- ``synthesis <note> <day file> <block id>`` — the archivist wrote that synthesis of the
  turns through the block; it counts once the note exists (here, or moved to archive/);
- ``cursor witness|synthesis <day file> <block id>`` (or ``-``) and ``last <day file>
  <block id>`` — where each stands, as the record was started or last compacted.

`sync` starts the record the first time it runs, with the turns this device holds that
neither has taken in and no remote holds (a fresh clone's turns are the other devices' to
take in). Without a record — a memory that never synced — both go by the file, as a single
device always has.
"""

from dataclasses import dataclass, field
from pathlib import Path

from souveraine.store import git, journal
from souveraine.store.atomic import atomic_write

RECORD = "souveraine-own"
NONE = "-"


@dataclass
class Own:
    turns: list[tuple[str, str]] = field(default_factory=list)   # (day file, block id), as journaled
    witnessed: int = -1          # turns[:witnessed + 1] are witnessed
    synthesized: int = -1        # turns[:synthesized + 1] are synthesized
    last: tuple[str, str] | None = None   # this device's newest committed witness
    consumed: bool = False       # lines a compaction can drop


def path(memory) -> Path:
    return git.git_dir(memory.root) / RECORD


def load(memory) -> Own | None:
    """What the record says; None without a record."""
    try:
        lines = path(memory).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    own, ids = Own(), {}
    for line in lines:
        kind, *fields = line.split(" ")
        if kind == "turn" and len(fields) == 2 and tuple(fields) not in own.turns:
            own.turns.append((fields[0], fields[1]))
        elif kind == "cursor" and len(fields) in (2, 3):
            setattr(own, fields[0] + "ed" if fields[0] == "witness" else "synthesized", _index(own, fields[1:]))
        elif kind == "last" and len(fields) == 2:
            own.last = (fields[0], fields[1])
        elif kind == "witness" and len(fields) == 4 and fields[1] in _ids(memory, fields[0], ids):
            own.witnessed, own.last, own.consumed = max(own.witnessed, _index(own, fields[2:])), tuple(fields[:2]), True
        elif kind == "synthesis" and len(fields) == 3 and _kept(memory, fields[0]):
            own.synthesized, own.consumed = max(own.synthesized, _index(own, fields[1:])), True
    return own


def start(memory) -> bool:
    """Start the record, if there is none: this device's turns not yet witnessed or
    synthesized, less those a remote holds. Whether it was started now."""
    if path(memory).exists():
        return False
    from souveraine.tempos import archive, counters, pressure

    witness, last = counters.unwitnessed(memory)
    synthesis = archive.pending_turns(memory, pressure.last_synthesis(memory))
    either = {(t.path, t.block_id) for t in witness + synthesis}
    either -= _on_remotes(memory, {relpath for relpath, _ in either})
    own = Own(turns=[(t.path, t.block_id) for t in _turns(memory, sorted(either))],
              last=(last.path, last.block_id) if last else None)
    own.witnessed = _before(own, witness)
    own.synthesized = _before(own, synthesis)
    _write(memory, own)
    return True


def journaled(memory, turns) -> None:
    """Persist journaled ``turns`` here (inside its change, under the memory's lock)."""
    if turns and any(_on(memory)) and path(memory).exists():
        _append(memory, "".join(f"turn {t.path} {t.block_id}\n" for t in turns))


def witnessed(memory, relpath: str, block: str, turns) -> None:
    """Reflect is writing a witness of ``turns`` (it counts once committed)."""
    if turns and _compacted(memory):
        _append(memory, f"witness {relpath} {block} {turns[-1].path} {turns[-1].block_id}\n")


def synthesized(memory, note: str, last) -> None:
    """The archivist is writing a synthesis of the turns through ``last`` (it counts once the note exists)."""
    if _compacted(memory):
        _append(memory, f"synthesis {note} {last.path} {last.block_id}\n")


def window(memory) -> tuple[list[journal.Turn], journal.Turn | None] | None:
    """This device's turns not yet witnessed, oldest first, and its last witness; None without a record."""
    own = load(memory)
    if own is None:
        return None
    last = _turn(memory, *own.last) if own.last else None
    return _turns(memory, own.turns[own.witnessed + 1:]), last


def pending(memory) -> list[journal.Turn] | None:
    """This device's turns not yet synthesized, oldest first; None without a record."""
    own = load(memory)
    return None if own is None else _turns(memory, own.turns[own.synthesized + 1:])


def count(memory, what: str = "witnessed", roles=("user", "assistant")) -> int | None:
    """Messages this device journaled and has not yet witnessed (or synthesized); None without a record."""
    turns = (window(memory) or (None,))[0] if what == "witnessed" else pending(memory)
    return None if turns is None else sum(1 for t in turns if t.role in roles)


# -- the record ----------------------------------------------------------------------------


def _append(memory, text: str) -> None:
    with open(path(memory), "a", encoding="utf-8") as handle:
        handle.write(text)


def _compacted(memory) -> bool:
    """Drop what both have taken in (under the memory's lock); whether there is a record."""
    own = load(memory)
    if own is None:
        return False
    if own.consumed:   # a tempo switched off takes nothing in: the record must not wait for it
        reflecting, archiving = _on(memory)
        last = len(own.turns) - 1
        done = min(own.witnessed if reflecting else last, own.synthesized if archiving else last) + 1
        own.turns = own.turns[done:]
        own.witnessed, own.synthesized = max(own.witnessed - done, -1), max(own.synthesized - done, -1)
        _write(memory, own)
    return True


def _on(memory) -> tuple[bool, bool]:
    """Whether reflection and the archivist are on."""
    return bool(memory.config["reflection"]["enabled"]), bool(memory.config["archivist"]["enabled"])


def _write(memory, own: Own) -> None:
    def at(index: int) -> str:
        return " ".join(own.turns[index]) if index >= 0 else NONE

    lines = [f"turn {p} {b}" for p, b in own.turns]
    lines += [f"cursor witness {at(own.witnessed)}", f"cursor synthesis {at(own.synthesized)}"]
    lines += [f"last {own.last[0]} {own.last[1]}"] if own.last else []
    atomic_write(path(memory), "\n".join(lines) + "\n")


def _before(own: Own, window: list[journal.Turn]) -> int:
    """The index of the last turn taken in before ``window`` begins."""
    held = {(t.path, t.block_id) for t in window}
    return next((i - 1 for i, key in enumerate(own.turns) if key in held), len(own.turns) - 1)


def _index(own: Own, fields: list[str]) -> int:
    key = tuple(fields)
    return own.turns.index(key) if key in own.turns else -1


def _ids(memory, relpath: str, cache: dict[str, set[str]]) -> set[str]:
    if relpath not in cache:
        full = memory.path(relpath)
        cache[relpath] = journal.block_ids(full.read_text(encoding="utf-8")) if full.exists() else set()
    return cache[relpath]


def _kept(memory, note: str) -> bool:
    name = note.rsplit("/", 1)[-1]
    return memory.path(note).exists() or (memory.root / "archive" / name).exists()


def _turns(memory, keys: list[tuple[str, str]]) -> list[journal.Turn]:
    wanted: dict[str, set[str]] = {}
    for relpath, block in keys:
        wanted.setdefault(relpath, set()).add(block)
    found = []
    for relpath in sorted(wanted):
        if memory.path(relpath).exists():
            found += [t for t in journal.read_day(memory.root, relpath) if t.block_id in wanted[relpath]]
    return found


def _turn(memory, relpath: str, block: str) -> journal.Turn | None:
    if not memory.path(relpath).exists():
        return None
    return next((t for t in journal.read_day(memory.root, relpath) if t.block_id == block), None)


def _on_remotes(memory, relpaths: set[str]) -> set[tuple[str, str]]:
    """The turns of these day files that a remote-tracking branch already holds."""
    refs = git.run(memory.root, "for-each-ref", "--format=%(refname)", "refs/remotes/", check=False).stdout.split()
    held = set()
    for ref in (r for r in refs if not r.endswith("/HEAD")):
        for relpath in relpaths:
            shown = git.run(memory.root, "show", f"{ref}:{relpath}", check=False)
            if shown.returncode == 0:
                held |= {(relpath, block) for block in journal.block_ids(shown.stdout)}
    return held
