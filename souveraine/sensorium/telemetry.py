"""What is happening now, read cheaply: presence, the unit and its chain, forks, N+1, commits, attention.

Nothing here scans the journal or memories/: the state file, the unit's few output files,
the live forks' records, the inbox's pending list, and git's newest commits. A fork's
divergence (a git diff per live fork) is read only when a viewport shows it.
"""

import re

from souveraine.errors import NoteError
from souveraine.sensorium.bandwidth import COMMITS, passes
from souveraine.store import layout, notes
from souveraine.store.memory import Memory

_ENTRY = re.compile(r"^## \d{4}-\d\d-\d\d \d\d:\d\d$", re.MULTILINE)
_PERSIST = "^chore(journal): persist"


# -- presence ------------------------------------------------------------------------------

def presence(memory: Memory) -> dict:
    """One line: who, whether she is thinking (a unit under way), waiting (thoughts queued) or idle."""
    from souveraine.status import identity

    work = workstate(memory)
    waiting = pending(memory)
    critical = sum(1 for i in waiting if i.urgency == "critical")
    busy = bool(work["unit"]) and work["phase"] != "idle"
    kind = "thinking" if busy else "waiting" if waiting else "idle"
    who = identity(memory) or "(no identity)"
    line = f"{who} · {kind}"
    if busy:
        line += f" (unit {work['unit']}, {work['phase']})"
    line += f" · {len(waiting)} waiting" + (f", {critical} critical" if critical else "") if waiting else " · nothing waiting"
    return {"presence": kind, "identity": who, "waiting": len(waiting), "critical": critical, "line": line}


def pending(memory: Memory) -> list:
    """The thoughts waiting now, most urgent first; a dated one whose time has not come is not yet waiting."""
    from souveraine.store import clock
    from souveraine.tempos import inbox

    if not inbox.enabled(memory):
        return []
    now = clock.now()
    return inbox.by_urgency([i for i in inbox.read(memory, inbox.PENDING).items if i.ripe(now)])


# -- the unit and its chain of phases ------------------------------------------------------

def workstate(memory: Memory) -> dict:
    """system/state.md's phase, unit, files and retries, through the flat reader."""
    path = memory.path(layout.STATE)
    try:
        meta = notes.properties(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        meta = {}
    if meta is None:
        from souveraine.forks import state

        return state.read(memory).to_dict()
    files = meta.get("files_touched") or []
    try:
        retries = int(meta.get("retries") or 0)
    except (TypeError, ValueError):
        retries = 0
    return {"phase": str(meta.get("phase") or "idle"), "unit": str(meta.get("unit") or ""),
            "files_touched": [str(f) for f in (files if isinstance(files, list) else [files])], "retries": retries}


def unit(memory: Memory, chain: bool = False) -> dict | None:
    """The unit under way (None when idle); with ``chain``, each phase's output so far."""
    from souveraine.forks import unit as units

    work = workstate(memory)
    if not work["unit"] or work["phase"] == "idle":
        return None
    out = {"unit": work["unit"], "phase": work["phase"], "files_touched": len(work["files_touched"]),
           "retries": work["retries"], "max_retries": units.MAX_RETRIES, "goal": _goal(memory, work["unit"])}
    if chain:
        out["chain"] = _chain(memory, work["unit"], work["phase"])
    return out


def _goal(memory: Memory, name: str) -> str:
    from souveraine.forks import unit as units

    path = memory.path(units.output_path(name, "INIT"))
    try:
        body = notes.read(path).body
    except (OSError, NoteError):
        return ""
    parts = [p.strip() for p in _ENTRY.split(body)[1:] if p.strip()]
    return " ".join(parts[0].split()) if parts else ""


def _chain(memory: Memory, name: str, current: str) -> list[dict]:
    from souveraine.forks import unit as units

    out = []
    for phase in units.WORKFLOW:
        path = units.output_path(name, phase) if phase in units.OUTPUTS else units.report_path(name)
        entries = 0
        if phase in units.OUTPUTS and memory.exists(path):
            entries = len(_ENTRY.findall(memory.read_text(path)))
        where = units.WORKFLOW.index(phase) - units.WORKFLOW.index(current)
        status = "current" if where == 0 else "done" if where < 0 or entries else "to come"
        out.append({"phase": phase, "status": status, "entries": entries, "path": path})
    return out


def chain_line(chain: list[dict]) -> str:
    marks = {"done": "✓", "current": "◉", "to come": "·"}
    return " → ".join(f"{c['phase']} {marks[c['status']]}" + (f"{c['entries']}" if c["entries"] > 1 else "")
                      for c in chain)


# -- forks ---------------------------------------------------------------------------------

def forks(memory: Memory, divergence: bool = False) -> list[dict]:
    """The live forks (active or returned), from their records; divergence only when asked."""
    from souveraine.forks import fork

    folder = memory.root / fork.RECORDS
    if not folder.is_dir():
        return []
    out = []
    threshold = memory.config["forks"]["divergence_threshold"]
    for path in sorted(folder.glob("*.md")):
        try:
            meta = notes.peek(path, "status", "task", "started", "divergence")
        except (OSError, UnicodeDecodeError, NoteError):
            continue
        if meta.get("status") not in fork.LIVE:
            continue
        item = {"name": path.stem, "status": str(meta["status"]), "task": str(meta.get("task") or ""),
                "started": str(meta.get("started") or "")[:16], "threshold": threshold}
        if divergence:
            item["divergence"] = _divergence(memory, path.stem)
            item["over"] = isinstance(item["divergence"], int) and item["divergence"] > threshold
        out.append(item)
    return out


def _divergence(memory: Memory, name: str) -> int | None:
    from souveraine.errors import GitError
    from souveraine.forks import divergence

    try:
        return divergence.since_fork_point(memory.root, "HEAD", f"fork/{name}").lines
    except (GitError, OSError, ValueError):
        return None


# -- N+1 and commits -----------------------------------------------------------------------

def n1(memory: Memory) -> dict | None:
    """The last N+1 pass that committed: when, what its commit says, what it wrote; and what waits in the spool."""
    done = memory.git("log", "-1", f"--grep={_PERSIST}", "--format=%h%x00%cI%x00%s", "--name-only", check=False)
    waiting = _spooled(memory)
    if done.returncode != 0 or not done.stdout.strip():
        return {"sha": "", "date": "", "subject": "", "wrote": [], "spooled": waiting} if waiting else None
    head, _, names = done.stdout.strip().partition("\n")
    sha, when, subject = head.split("\0", 2)
    return {"sha": sha, "date": when, "subject": subject, "wrote": [n for n in names.split("\n") if n.strip()],
            "spooled": waiting}


def _spooled(memory: Memory) -> int:
    from souveraine.store import spool

    try:
        return len(spool.entries(memory))
    except OSError:
        return 0


def commits(memory: Memory, count: int = COMMITS) -> list[dict]:
    done = memory.git("log", f"-{count}", "--format=%h%x00%cI%x00%s", check=False)
    out = []
    for line in done.stdout.splitlines() if done.returncode == 0 else []:
        sha, when, subject = line.split("\0", 2)
        out.append({"sha": sha, "date": when, "subject": subject})
    return out


# -- attention -----------------------------------------------------------------------------

def attention(memory: Memory, bandwidth: str, *, live: list[dict] | None = None, inbox: bool = True,
              due: bool = False) -> list[dict]:
    """What needs the being's attention, each with its urgency and the command that settles it,
    most urgent first, only what this bandwidth lets through."""
    found = []
    found += _hooks(memory)
    found += _fork_items(memory if live is None else None, live)
    found += _unit_items(memory)
    found += _spool_items(memory)
    if inbox:
        found += _inbox_items(memory)
    if due:
        found += _due_items(memory)
    order = ("critical", "high", "medium", "low")
    return sorted((f for f in found if passes(bandwidth, f["urgency"])), key=lambda f: order.index(f["urgency"]))


def _item(urgency: str, what: str, how: str) -> dict:
    return {"urgency": urgency, "what": what, "how": how}


def _hooks(memory: Memory) -> list[dict]:
    from souveraine.laws import install

    missing = [name for name, ok in install.installed(memory.root).items() if not ok]
    return [_item("high", f"hooks missing: {', '.join(missing)} — commits are not checked against the laws",
                  "souveraine init --force")] if missing else []


def _fork_items(memory: Memory | None, live: list[dict] | None) -> list[dict]:
    out = []
    for f in live if live is not None else forks(memory):
        if f.get("over"):
            out.append(_item("high", f"fork {f['name']} drifted {f['divergence']} lines (over {f['threshold']}): "
                                     "it will be closed, not integrated", f"souveraine fork close {f['name']}"))
        elif f["status"] == "returned":
            out.append(_item("medium", f"fork {f['name']} returned: integrate it or close it",
                             f"souveraine fork integrate {f['name']}"))
    return out


def _unit_items(memory: Memory) -> list[dict]:
    from souveraine.forks import unit as units

    work = workstate(memory)
    if work["unit"] and work["phase"] in ("DEVELOP", "REVIEW") and work["retries"] >= units.MAX_RETRIES:
        return [_item("medium", f"unit {work['unit']} has used its {units.MAX_RETRIES} returns from REVIEW: "
                                "finish it, or report what blocks it", "souveraine unit report --blocked TEXT")]
    return []


def _spool_items(memory: Memory) -> list[dict]:
    waiting = _spooled(memory)
    return [_item("high", f"{waiting} exchange{'s' if waiting > 1 else ''} kept in the spool, not yet committed",
                  "souveraine persist --flush")] if waiting else []


def _inbox_items(memory: Memory) -> list[dict]:
    waiting = pending(memory)
    if not waiting:
        return []
    top = waiting[0].urgency
    return [_item(top, f"{len(waiting)} thought{'s' if len(waiting) > 1 else ''} waiting in the inbox "
                       f"(the most urgent: {top})", "souveraine surface")]


def _due_items(memory: Memory) -> list[dict]:
    from souveraine.tempos import pressure

    measured = pressure.measure(memory)
    return [_item("medium", f"the archivist is due: pressure {measured.ratio:.0%}", "souveraine archive")] \
        if measured.due else []
