"""Workflow state (Law 8): system/state.md holds the phase, the unit and the files touched.

It is pinned in every wake, so it stays small: paths and a phase, never content. What a
phase produced lives in reference/work/<unit>/ (see unit.py); this file only points there.
"""

import re
from dataclasses import asdict, dataclass, field

from souveraine.errors import Refused, UsageError
from souveraine.store import notes
from souveraine.store.memory import Memory

PATH = "system/state.md"
IDLE = "idle"
PHASES = (IDLE, "INIT", "ORIENT", "DEVELOP", "REVIEW", "UPDATE-DOCS", "REPORT")
MAX_FILES = 200
MAX_PATH = 300
_UNIT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


@dataclass
class State:
    phase: str = IDLE
    unit: str = ""
    files_touched: list[str] = field(default_factory=list)
    retries: int = 0          # times this unit went back from REVIEW to DEVELOP

    def to_dict(self) -> dict:
        return asdict(self)


def phase_name(text: str) -> str:
    """The canonical spelling of a phase ('develop', 'update_docs' → 'DEVELOP', 'UPDATE-DOCS')."""
    wanted = str(text).strip().upper().replace("_", "-")
    for phase in PHASES:
        if phase.upper() == wanted:
            return phase
    raise UsageError(f"'{text}' is not a phase; use one of: {', '.join(PHASES)}", code="bad_phase")


def unit_name(text: str) -> str:
    """A unit's name, which also names its folder reference/work/<unit>/."""
    name = str(text).strip()
    if not _UNIT.match(name):
        raise UsageError(f"'{text}' is not a unit name; use letters, digits, '-' or '_' (up to 64)", code="bad_unit")
    return name


def clean_paths(paths) -> list[str]:
    """Paths as given, stripped, deduplicated in order; refuses anything that is not a path."""
    out: list[str] = []
    for raw in paths:
        path = str(raw).strip()
        if not path:
            continue
        if len(path) > MAX_PATH or any(ord(c) < 32 for c in path):
            raise UsageError(f"'{path[:40]}…' is not a file path; files_touched holds paths only, never content",
                             code="bad_path")
        if path not in out:
            out.append(path)
    return out


def read(memory: Memory) -> State:
    if not memory.exists(PATH):
        return State()
    note = notes.read(memory.path(PATH))
    files = note.get("files_touched") or []
    return State(
        phase=phase_name(note.get("phase") or IDLE),
        unit=str(note.get("unit") or ""),
        files_touched=[str(p) for p in (files if isinstance(files, list) else [files])],
        retries=_count(note.get("retries")),
    )


def _count(value) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def threaded(current: State, *, phase: str | None = None, unit: str | None = None,
             files=(), replace_files: bool = False, retries: int | None = None) -> State:
    """The next state: files touched and retries accumulate across phases until the unit changes."""
    new_unit = current.unit if unit is None else unit
    carried = [] if replace_files or new_unit != current.unit else list(current.files_touched)
    files_touched = clean_paths([*carried, *files])
    if len(files_touched) > MAX_FILES:
        raise Refused(f"state.md keeps at most {MAX_FILES} paths and this would make {len(files_touched)}; "
                      "end the unit with 'souveraine unit report' or start a new one", code="state_too_large")
    kept = current.retries if new_unit == current.unit else 0
    return State(phase=current.phase if phase is None else phase_name(phase), unit=new_unit,
                 files_touched=files_touched, retries=kept if retries is None else retries)


def write(memory: Memory, change, state: State) -> None:
    """Put ``state`` into system/state.md within an open change, keeping any other property."""
    note = notes.read(memory.path(PATH)) if memory.exists(PATH) else notes.new({"type": "state"})
    note["phase"] = state.phase
    note["unit"] = state.unit
    note["files_touched"] = list(state.files_touched)
    if state.retries:
        note["retries"] = state.retries
    elif note.meta and "retries" in note.meta:
        del note.meta["retries"]
    if not note.get("description"):
        note["description"] = "The agent's working state — phase, unit and files touched. Paths only, never content."
    note.body = body(state)
    change.write_note(PATH, note)


def set_state(memory: Memory, *, phase: str | None = None, unit: str | None = None,
              files=(), replace_files: bool = False) -> dict:
    """``state set``: change the phase, the unit or add files touched; one commit."""
    if unit:
        unit = unit_name(unit)
    with memory.change(f"chore(state): {_summary(phase, unit)}") as change:
        state = threaded(read(memory), phase=phase, unit=unit, files=files, replace_files=replace_files)
        write(memory, change, state)
    return {**state.to_dict(), "commit": change.sha}


def body(state: State) -> str:
    if state.phase == IDLE and not state.unit:
        return "# State\n\nIdle: no unit of work is under way.\n"
    where = f"Outputs: `reference/work/{state.unit}/`." if state.unit else "No unit named."
    count = len(state.files_touched)
    return (f"# State\n\nUnit `{state.unit or '-'}`, phase **{state.phase}**; "
            f"{count} file{'s' if count != 1 else ''} touched. {where}\n")


def _summary(phase: str | None, unit: str | None) -> str:
    parts = []
    if phase is not None:
        parts.append(f"phase {phase_name(phase)}")
    if unit is not None:
        parts.append(f"unit {unit or '(none)'}")
    return ", ".join(parts) or "files touched"
