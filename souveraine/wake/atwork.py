"""What is happening now, as much as the viewport discloses (constitution §III.3).

``high``: the unit with its chain of phases, every live fork with its divergence, the last
N+1 pass, recent commits and all that needs attention. ``medium``: the unit, the live forks
and what needs attention at medium urgency or more. ``low``: urgent attention only.
``minimal``: nothing here — the wake is a line of presence (``presence``).

These parts change with every commit, so they come after the stable sections (a model's
prompt cache keeps what precedes them); over budget they go right after the recent memories,
being the cheapest to get back (`souveraine status`).
"""

from souveraine.sensorium import bandwidth as classes
from souveraine.sensorium import telemetry
from souveraine.store.memory import Memory
from souveraine.wake.document import CUT_RECENT, Part
from souveraine.wake.privacy import Viewport


def presence(memory: Memory) -> Part:
    data = telemetry.presence(memory)
    return Part("presence", "presence", data, data["line"])


def at_work(memory: Memory, view: Viewport) -> list[Part]:
    shows = classes.SHOWS[view.bandwidth]
    out: list[Part] = []
    live = telemetry.forks(memory, divergence="divergence" in shows) if "forks" in shows else None
    if "unit" in shows:
        unit = telemetry.unit(memory, chain="chain" in shows)
        if unit:
            out.append(_unit(unit))
    for fork in live or []:
        out.append(_fork(fork))
    if "n1" in shows:
        n1 = telemetry.n1(memory)
        if n1:
            out.append(_n1(n1, view))
    if "commits" in shows and not view.guarded:     # a subject may quote a private memory
        out += _commits(telemetry.commits(memory), view)
    items = [a for a in telemetry.attention(memory, view.bandwidth, live=live, inbox=False) if not view.hides(a["what"])]
    out += [Part("at_work", f"attention {n}", {"kind": "attention", **a},
                 f"- **{a['urgency']}**: {a['what']} (`{a['how']}`)") for n, a in enumerate(items)]
    for n, part in enumerate(reversed(out)):
        part.cut, part.seq = CUT_RECENT, -1 - n    # after the recent memories; commits first
    return out


def _unit(unit: dict) -> Part:
    retries = f"; back from review {unit['retries']} of {unit['max_retries']}" if unit["retries"] else ""
    line = f"- Unit `{unit['unit']}` in **{unit['phase']}**{retries}" + (f": {unit['goal']}" if unit["goal"] else "")
    if unit.get("chain"):
        line += f"\n  {telemetry.chain_line(unit['chain'])} — outputs in `reference/work/{unit['unit']}/`"
    return Part("at_work", f"unit {unit['unit']}", {"kind": "unit", **unit}, line)


def _fork(fork: dict) -> Part:
    drift = ""
    if "divergence" in fork and fork["divergence"] is not None:
        drift = f", {fork['divergence']} of {fork['threshold']} lines" + (" — over" if fork["over"] else "")
    task = f": {fork['task']}" if fork["task"] else ""
    return Part("at_work", f"fork {fork['name']}", {"kind": "fork", **fork},
                f"- Fork `{fork['name']}` ({fork['status']}{drift}){task}")


def _n1(n1: dict, view: Viewport) -> Part:
    wrote = [p for p in n1["wrote"] if not p.startswith("journal/") and view.allows(p)]
    said = f"`{n1['sha']}` {n1['subject']}" if n1["sha"] else "nothing committed yet"
    line = f"- Last N+1: {said}" + (f" → {', '.join(f'`{p}`' for p in wrote)}" if wrote else "")
    if n1["spooled"]:
        line += f"; {n1['spooled']} waiting in the spool"
    return Part("at_work", "n1", {"kind": "n1", **{**n1, "wrote": wrote}}, line)


def _commits(found: list[dict], view: Viewport) -> list[Part]:
    shown = [c for c in found if not view.hides(c["subject"])]
    if not shown:
        return []
    md = "- Recent commits:\n" + "\n".join(f"  - `{c['sha']}` {c['subject']}" for c in shown)
    return [Part("at_work", "commits", {"kind": "commits", "commits": shown}, md)]
