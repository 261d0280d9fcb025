"""The bootstrap's smoke test (constitution §IX.2, step 5): triage routes a STATUS query
before any real work, and the answer comes from the state file, read directly.

It checks what a first conversation leans on: the triage skill is installed, a "where are
we?" goes to STATUS (not to the full workflow), and system/state.md answers it. It writes
nothing and asks no model, so it costs a few milliseconds.
"""

from souveraine.errors import NoteError
from souveraine.store import layout
from souveraine.store.memory import Memory

QUERY = "Where are we?"
SKILLS = (".skills/triage/SKILL.md", ".skills/workflow/SKILL.md")


def smoke_test(memory: Memory) -> dict:
    """The verdict: ``ok``, the route the query took, the answer read from the state, and any problem."""
    from souveraine.forks import state
    from souveraine.forks.triage import triage

    problems = [f"{rel} is missing: the agent has no skill to route or work by ('souveraine init --force')"
                for rel in SKILLS if not memory.exists(rel)]
    routed = triage(QUERY, None, use_model=False)
    if routed.category != "STATUS":
        problems.append(f"triage routed '{QUERY}' to {routed.category}, not STATUS ({routed.reason})")
    try:
        current = state.read(memory)
        answer = _answer(current)
    except (OSError, NoteError, ValueError) as exc:
        current, answer = None, ""
        problems.append(f"{layout.STATE} cannot be read: {exc}")
    return {"ok": not problems, "query": QUERY, "category": routed.category, "reason": routed.reason,
            "state": current.to_dict() if current else None, "answer": answer, "problems": problems}


def _answer(current) -> str:
    if current.phase == "idle" and not current.unit:
        return "Idle: no unit of work is under way."
    return f"Unit {current.unit or '-'}, phase {current.phase}; {len(current.files_touched)} files touched."
