"""Messages since the last reflection and the last synthesis, counted as persist goes.

Counting from the journal on every turn would read a year of files; instead a small
cache, ``.souveraine/counters.json`` (git-ignored), remembers the counts and how far into
the journal they are true (the newest day file and its size). Each call reads only what
was appended since, and rebuilds from the journal when the cache is missing, unreadable,
or the journal shrank under it.

"Since the last reflection" is exactly what ``reflect`` would witness now
(``unwitnessed``): the turns after the last one the newest witness saw, wherever its entry
landed, and turns back-filled into older days after it — so a back-filled turn is counted
once and witnessed once, and persist, status and reflect agree on what is due. A witness
entry seen while catching up makes the count a recount of that window.

"Since the last archive" means user and assistant turns on journal days after the newest
synthesis's ``through`` date, the same line ``tempos.pressure`` draws; a change in
system/synthesized/ (its folder's mtime) triggers that recount.
"""

import json
from dataclasses import dataclass
from datetime import timedelta

from souveraine.store import clock, journal
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

CACHE = "counters.json"
SYNTHESIZED = "system/synthesized"
_VERSION = 1
MESSAGES = ("user", "assistant")
REFLECTION = "reflection"


@dataclass
class Counts:
    reflection: int = 0       # user and assistant turns since the last reflection entry
    archive: int = 0          # … since the last synthesis
    file: str = ""            # the newest journal day file these counts include…
    size: int = 0             # …up to this many bytes
    synthesized: int = 0      # mtime_ns of system/synthesized when last looked at

    def add(self, turns) -> bool:
        """Count ``turns``; True when a witness entry was among them (then only a recount is exact)."""
        witnessed = False
        for turn in turns:
            if turn.role == REFLECTION:
                self.reflection, witnessed = 0, True
            elif turn.role in MESSAGES:
                self.reflection += 1
                self.archive += 1
        return witnessed


def load(memory: Memory) -> Counts:
    """The counts, true for the journal as it is now."""
    counts = _read(memory)
    caught = _catch_up(memory, counts) if counts is not None else None
    if caught is None:
        counts = rebuild(memory)
    elif caught:
        counts.reflection = since_witness(memory)
    stamp = _synthesized_stamp(memory)
    if stamp != counts.synthesized:
        counts.archive = _since_synthesis(memory)
        counts.synthesized = stamp
    return counts


def advance(memory: Memory, counts: Counts, turns, newest: str | None) -> None:
    """Count turns just appended, and move the mark to the end of ``newest``."""
    counts.add(turns)
    if newest and (not counts.file or journal.day_of(newest) >= journal.day_of(counts.file)):
        counts.file = newest
        counts.size = memory.path(newest).stat().st_size


def save(memory: Memory, counts: Counts) -> None:
    data = {"version": _VERSION, **counts.__dict__}
    atomic_write(memory.cache / CACHE, json.dumps(data, indent=1) + "\n")


def forget(memory: Memory) -> None:
    """Drop the cache, so the next count is rebuilt from the journal: a merge (sync) may have set
    another device's turns anywhere in a day file, not only after the mark."""
    (memory.cache / CACHE).unlink(missing_ok=True)


def rebuild(memory: Memory) -> Counts:
    days = journal.days(memory.root)
    newest = days[-1] if days else ""
    return Counts(
        reflection=since_witness(memory),
        archive=_since_synthesis(memory),
        file=newest,
        size=memory.path(newest).stat().st_size if newest else 0,
        synthesized=_synthesized_stamp(memory),
    )


def _read(memory: Memory) -> Counts | None:
    try:
        data = json.loads((memory.cache / CACHE).read_text(encoding="utf-8"))
        if data.pop("version") != _VERSION:
            return None
        return Counts(**data)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _catch_up(memory: Memory, counts: Counts) -> bool | None:
    """Read what was appended since the mark; None when only a rebuild can tell, True when a
    witness entry came (the reflection count is then recounted)."""
    if not counts.file:
        return False if not journal.days(memory.root) else None
    try:
        first = journal.day_of(counts.file)
    except ValueError:
        return None
    witnessed = False
    last = max(first, clock.now().date())
    day = first
    while day <= last:
        relpath = journal.day_path(day)
        full = memory.path(relpath)
        if relpath == counts.file:
            if not full.exists():
                return None
            data = full.read_bytes() if full.stat().st_size != counts.size else b""
            if data and len(data) < counts.size:
                return None
            witnessed |= counts.add(journal.parse(data[counts.size:].decode("utf-8", "replace"), relpath) if data else [])
        elif full.exists():
            witnessed |= counts.add(journal.read_day(memory.root, relpath))
        if full.exists():
            counts.file, counts.size = relpath, full.stat().st_size
        day += timedelta(days=1)
    return witnessed


# -- what the last witness saw ---------------------------------------------------------------

def through(entry: journal.Turn) -> tuple[str, str] | None:
    """The day file and block of the last turn a witness entry saw: the last link of its first line."""
    first = entry.text.split("\n", 1)[0]
    if "[[" not in first:
        return None
    from souveraine.language import markdown

    seen = [l for l in markdown.wikilinks(first) if l.target.startswith("journal/") and (l.anchor or "").startswith("^")]
    return (seen[-1].target + ".md", seen[-1].anchor[1:]) if seen else None


def unwitnessed(memory: Memory) -> tuple[list[journal.Turn], journal.Turn | None]:
    """The turns no witness saw, oldest first, and the newest witness entry (None before the first).

    A witness sees the turns up to the last one its first line links to. Turns written after
    that one — even while the witness was being composed, before its entry — are the next
    window's. So are turns back-filled (``persist --at`` in the past) into a day file older
    than that one after the witness was committed: git's history says which. Reads day
    files newest first and stops at the witnessed turn, so the cost is the window's.
    """
    collected: list[journal.Turn] = []
    witness, mark, cut = None, None, 0
    for relpath in reversed(journal.days(memory.root)):
        if mark and relpath < mark[0]:
            break                         # the witnessed turn is not where its link says: stop at the entry
        for turn in reversed(journal.read_day(memory.root, relpath)):
            if mark and relpath == mark[0] and turn.block_id == mark[1]:
                return sorted(collected + _late(memory, witness, mark[0]), key=_order), witness
            if turn.role == REFLECTION:
                if witness is None:
                    witness, mark, cut = turn, through(turn), len(collected)
                    if mark is None:
                        return collected[::-1], witness
                continue
            collected.append(turn)
    if witness is None:
        return collected[::-1], None
    return collected[:cut][::-1], witness


def _order(turn: journal.Turn) -> tuple:
    return (turn.path, turn.line)


def _late(memory: Memory, witness: journal.Turn, through_file: str) -> list[journal.Turn]:
    """Turns added, after the witness's commit, to day files older than its witnessed turn's."""
    from souveraine.store import git

    found = git.run(memory.root, "log", "-1", "--format=%H", "-S", f"^{witness.block_id}", "--", witness.path,
                    check=False).stdout.strip()
    if not found:
        return []                         # the witness is not committed yet: nothing came after it
    changed = git.run(memory.root, "diff", "--name-only", "-z", found, "--", journal.ROOT, check=False).stdout
    untracked = git.run(memory.root, "ls-files", "--others", "--exclude-standard", "-z", "--", journal.ROOT,
                        check=False).stdout
    late = []
    for relpath in sorted(set((changed + "\0" + untracked).split("\0")) - {""}):
        if relpath >= through_file or not (memory.root / relpath).is_file():
            continue
        try:
            journal.day_of(relpath)
        except ValueError:
            continue
        before = git.run(memory.root, "show", f"{found}:{relpath}", check=False).stdout
        seen = journal.block_ids(before)
        late += [t for t in journal.read_day(memory.root, relpath) if t.block_id not in seen and t.role != REFLECTION]
    return late


def since_witness(memory: Memory) -> int:
    """User and assistant turns no witness saw: what reflect would witness now (once the memory
    syncs, this device's own: sync.own)."""
    from souveraine.sync import own

    mine = own.count(memory)
    return sum(1 for t in unwitnessed(memory)[0] if t.role in MESSAGES) if mine is None else mine


def _synthesized_stamp(memory: Memory) -> int:
    try:
        return (memory.root / SYNTHESIZED).stat().st_mtime_ns
    except OSError:
        return 0


def _since_synthesis(memory: Memory) -> int:
    from souveraine.tempos.pressure import unsynthesized_messages

    return unsynthesized_messages(memory)
