"""The six-phase workflow: INIT, ORIENT, DEVELOP, REVIEW, UPDATE-DOCS, REPORT.

Every phase leaves its output on disk before the next begins, so a compaction never
loses the work: reference/work/<unit>/<phase>.md holds what each phase produced (one
dated section per entry, appended), system/state.md says where the unit stands, and the
report is appended to reference/reports/<unit>.md, which the laws keep append-only.
"""

import re

from souveraine.errors import Refused
from souveraine.forks import state as workstate
from souveraine.store import clock, notes
from souveraine.store.memory import Memory

OUTPUTS = {
    "INIT": "init.md",
    "ORIENT": "orient.md",
    "DEVELOP": "develop.md",
    "REVIEW": "review.md",
    "UPDATE-DOCS": "docs-changes.md",
}
WORKFLOW = workstate.PHASES[1:]
MAX_RETRIES = 2     # REVIEW → DEVELOP, per unit (constitution §VIII.2: "max 2 retries")
_ENTRY = re.compile(r"^## \d{4}-\d\d-\d\d \d\d:\d\d$", re.MULTILINE)


def output_path(unit: str, phase: str) -> str:
    return f"reference/work/{unit}/{OUTPUTS[phase]}"


def report_path(unit: str) -> str:
    return f"reference/reports/{unit}.md"


def start(memory: Memory, name: str, goal: str = "") -> dict:
    """Begin a unit: state INIT, files touched emptied, the goal as INIT's output."""
    unit = workstate.unit_name(name)
    with memory.change(f"chore(state): start unit {unit}") as change:
        current = workstate.read(memory)
        if current.phase != workstate.IDLE and current.unit:
            raise Refused(f"unit {current.unit} is in {current.phase}; finish it with 'souveraine unit report' "
                          "or set it aside with 'souveraine state set --phase idle'", code="unit_active")
        _add_output(memory, change, unit, "INIT", goal.strip() or "(no goal given)")
        new = workstate.State(phase="INIT", unit=unit, files_touched=[])
        workstate.write(memory, change, new)
    return {**new.to_dict(), "output": output_path(unit, "INIT"), "commit": change.sha}


def phase(memory: Memory, target: str, *, files=(), output: str = "") -> dict:
    """Record the current phase's output (if given), then enter ``target``.

    A phase may be stayed in (to add output or files), returned to, or followed by the
    next one; skipping ahead is refused, and so is leaving a phase that left no output.
    """
    wanted = workstate.phase_name(target)
    with memory.change("chore(state): unit phase") as change:
        current = _active(memory)
        if wanted == workstate.IDLE:
            raise Refused("a unit ends with 'souveraine unit report', not by entering idle", code="phase_order")
        _check_order(current.phase, wanted)
        retrying = current.phase == "REVIEW" and wanted == "DEVELOP"
        if retrying and current.retries >= MAX_RETRIES:
            raise Refused(f"unit {current.unit} went back from REVIEW to DEVELOP {current.retries} times already, the most "
                          f"the workflow allows; report what blocks it ('souveraine unit report --blocked TEXT'), "
                          "then start a new unit for what is left", code="retries_exhausted")
        if output.strip():
            _add_output(memory, change, current.unit, current.phase, output.strip(), files)
        if wanted != current.phase:
            _require_output(memory, current.unit, current.phase, wanted)
        new = workstate.threaded(current, phase=wanted, files=files,
                                 retries=current.retries + 1 if retrying else None)
        workstate.write(memory, change, new)
        verb = "continues" if wanted == current.phase else "goes back to" if retrying else "enters"
        change.message = f"chore(state): unit {current.unit} {verb} {wanted}"
    result = {**new.to_dict(), "left": current.phase, "commit": change.sha}
    if wanted == "ORIENT":
        result["decisions"] = decisions_for(memory, current.unit)
    return result


def decisions_for(memory: Memory, unit: str) -> list[dict]:
    """The ADRs that ORIENT should read: those matching the unit's goal (INIT's output)."""
    from souveraine.forks import decisions

    goal = output_path(unit, "INIT")
    text = notes.read(memory.path(goal)).body if memory.exists(goal) else ""
    return decisions.relevant(memory, text.replace(f"# {unit} · INIT", ""))


def report(memory: Memory, summary: str = "", blocked: str = "") -> dict:
    """Append the unit's report to reference/reports/<unit>.md and return the state to idle.

    A report comes after UPDATE-DOCS; with ``blocked`` (what stops the unit) it may come from
    any phase, and says so.
    """
    blocked = blocked.strip()
    with memory.change("docs(state): unit report") as change:
        current = _active(memory)
        if not blocked:
            _check_reportable(memory, current)
        path = report_path(current.unit)
        if not memory.exists(path):
            change.write_note(path, notes.new({
                "type": "report",
                "unit": current.unit,
                "description": f"Reports of unit {current.unit}: what was done, reviewed and documented.",
                "tags": ["report"],
            }, f"# Unit {current.unit}\n"))
        change.append(path, _report_section(memory, current, summary.strip(), blocked))
        workstate.write(memory, change, workstate.State())
        change.message = f"docs(state): report of unit {current.unit}" + (f" (blocked in {current.phase})" if blocked else "")
    return {"unit": current.unit, "report": path, "files_touched": current.files_touched, "blocked": blocked or None,
            "phase": current.phase, "retries": current.retries, "commit": change.sha}


def _check_reportable(memory: Memory, current: workstate.State) -> None:
    if current.phase not in ("UPDATE-DOCS", "REPORT"):
        raise Refused(f"unit {current.unit} is in {current.phase}; the report comes after UPDATE-DOCS "
                      "('souveraine unit phase ...' through each phase first), or say what blocks it "
                      "with --blocked TEXT", code="phase_order")
    if current.phase == "UPDATE-DOCS":
        _require_output(memory, current.unit, "UPDATE-DOCS", "REPORT")


def _active(memory: Memory) -> workstate.State:
    current = workstate.read(memory)
    if not current.unit or current.phase == workstate.IDLE:
        raise Refused("no unit is under way; start one with 'souveraine unit start NAME'", code="no_unit")
    return current


def _check_order(current: str, wanted: str) -> None:
    if WORKFLOW.index(wanted) > WORKFLOW.index(current) + 1:
        after = WORKFLOW[WORKFLOW.index(wanted) - 1]
        raise Refused(f"{wanted} comes after {after}, and the unit is in {current}; "
                      f"enter {WORKFLOW[WORKFLOW.index(current) + 1]} first", code="phase_order")


def _require_output(memory: Memory, unit: str, leaving: str, entering: str) -> None:
    if leaving in OUTPUTS and not memory.exists(output_path(unit, leaving)):
        raise Refused(f"{leaving} has left no output yet; give it with --output TEXT|FILE before entering "
                      f"{entering} (it goes to {output_path(unit, leaving)})", code="phase_output_missing")


def _add_output(memory: Memory, change, unit: str, phase: str, text: str, files=()) -> None:
    if phase not in OUTPUTS:
        raise Refused(f"{phase} has no output file; its output is the report ('souveraine unit report')",
                      code="phase_order")
    path = output_path(unit, phase)
    if not memory.exists(path):
        change.write_note(path, notes.new({
            "type": "work",
            "unit": unit,
            "phase": phase,
            "description": f"{phase} output of unit {unit}.",
            "tags": ["work", phase.lower()],
        }, f"# {unit} · {phase}\n"))
    listed = workstate.clean_paths(files)
    touched = "\n\nFiles: " + ", ".join(f"`{p}`" for p in listed) if listed else ""
    change.append(path, f"\n## {clock.now():%Y-%m-%d %H:%M}\n\n{text}{touched}\n")


def _report_section(memory: Memory, current: workstate.State, summary: str, blocked: str = "") -> str:
    lines = [f"\n## Report · {clock.now():%Y-%m-%d %H:%M}\n"]
    if summary:
        lines.append(f"\n{summary}\n")
    if blocked:
        tries = f", after {current.retries} return{'s' if current.retries != 1 else ''} from REVIEW" if current.retries else ""
        lines.append(f"\n### Blocked in {current.phase}{tries}\n\n{blocked}\n")
    for phase, name in OUTPUTS.items():
        path = output_path(current.unit, phase)
        if memory.exists(path):
            latest = _ENTRY.split(notes.read(memory.path(path)).body)[-1].strip()
            lines.append(f"\n### {phase} · [[{path[:-3]}]]\n\n{latest}\n")
    if current.files_touched:
        lines.append("\n### Files touched\n\n" + "".join(f"- `{p}`\n" for p in current.files_touched))
    return "".join(lines)
