"""`status`: the memory at a glance, as much of it as the viewport's bandwidth discloses.

The classes are the seed's (``sensorium.bandwidth``): ``high`` shows everything — the unit
and its chain of phases, every live fork with its divergence, the inbox's contents, the last
N+1 pass, recent commits, the journal and tiers, pressure, hooks, attention; ``medium`` the
operational state — the unit, the live forks, the inbox's count, pressure, tiers, what needs
attention; ``low`` only what is urgent: the urgent thoughts waiting and urgent attention;
``minimal`` one line of presence.
"""

import re

from souveraine.errors import NoteError
from souveraine.sensorium import bandwidth as classes
from souveraine.sensorium import telemetry
from souveraine.store import journal, notes
from souveraine.store.memory import Memory

BANDWIDTHS = classes.BANDWIDTHS
TIERS = ("episodic", "foundational", "constitutive")
_ITEM = re.compile(r"^- ", re.MULTILINE)


def status(memory: Memory, bandwidth: str = "high") -> dict:
    """Plain data; the CLI renders it. ``minimal`` is presence alone."""
    shows = classes.SHOWS[classes.check(bandwidth)]
    if bandwidth == "minimal":
        return {"bandwidth": bandwidth, **telemetry.presence(memory)}
    data = {"bandwidth": bandwidth, "identity": identity(memory), "phase": phase(memory)}
    if "where" in shows:
        data["memory"] = str(memory.root)
        data["project"] = {"id": memory.project_id, "name": memory.config["project"]["name"]}
    live = telemetry.forks(memory, divergence="divergence" in shows) if "forks" in shows else None
    if "unit" in shows:
        data["unit"] = telemetry.unit(memory, chain="chain" in shows)
    if live is not None:
        data["forks"] = live
    waiting = telemetry.pending(memory)
    if bandwidth == "low":
        data["urgent"] = [i.to_dict() for i in waiting if classes.passes(bandwidth, i.urgency)]
    else:
        data["pending"] = pending(memory)
    if "inbox" in shows:
        data["inbox"] = [i.to_dict() for i in waiting[:classes.INBOX_LISTED]]
    if "pressure" in shows:
        from souveraine.tempos import pressure

        data["pressure"] = pressure.measure(memory).to_dict()
    if "journal" in shows:
        days = journal.days(memory.root)
        data["journal"] = {"days": len(days), "turns": sum(_turns(memory, rel) for rel in days)}
        from souveraine.tempos.counters import since_witness

        data["since_reflection"] = since_witness(memory)
    if "tiers" in shows:
        data["memories"] = memories_by_tier(memory)
    if "hooks" in shows:
        from souveraine.laws import install

        data["hooks"] = install.installed(memory.root)
    if "n1" in shows:
        data["n1"] = telemetry.n1(memory)
    if "commits" in shows:
        data["commits"] = telemetry.commits(memory)
        data["last_commit"] = data["commits"][0] if data["commits"] else None
    data["attention"] = telemetry.attention(memory, bandwidth, live=live, inbox=bandwidth != "low",
                                            due="pressure" in shows)
    return data


def identity(memory: Memory) -> str | None:
    handle = memory.config["project"]["identity"]
    if handle:
        return handle
    folder = memory.root / "identities"
    handles = sorted(p.stem for p in folder.glob("*.md")) if folder.is_dir() else []
    return handles[0] if handles else None


def phase(memory: Memory) -> str:
    path = memory.root / "system" / "state.md"
    try:
        return str(notes.peek(path, "phase").get("phase") or "idle")
    except (OSError, NoteError):
        return "unknown"


def pending(memory: Memory) -> int:
    path = memory.root / "inbox" / "pending.md"
    return len(_ITEM.findall(path.read_text(encoding="utf-8"))) if path.exists() else 0


def memories_by_tier(memory: Memory) -> dict[str, int]:
    from souveraine.identity.catalog import catalog

    totals = catalog(memory).totals()
    return {tier: totals.get(tier, 0) for tier in TIERS}


def last_commit(memory: Memory) -> dict | None:
    found = telemetry.commits(memory, 1)
    return found[0] if found else None


def _turns(memory: Memory, relpath: str) -> int:
    text = (memory.root / relpath).read_text(encoding="utf-8")
    return sum(1 for t in journal.parse(text, relpath) if t.role in ("user", "assistant"))
