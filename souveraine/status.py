"""`status`: the memory at a glance, as much of it as the viewport's bandwidth allows."""

import re

from souveraine.errors import NoteError
from souveraine.store import journal, notes
from souveraine.store.memory import Memory

BANDWIDTHS = ("high", "medium", "low", "minimal")
TIERS = ("episodic", "foundational", "constitutive")
_ITEM = re.compile(r"^- ", re.MULTILINE)


def status(memory: Memory, bandwidth: str = "high") -> dict:
    """Plain data; the CLI renders it. ``minimal`` is one word of presence."""
    if bandwidth == "minimal":
        return {"presence": "present"}
    from souveraine.tempos import pressure

    data = {
        "identity": identity(memory),
        "phase": phase(memory),
        "pending": pending(memory),
        "pressure": pressure.measure(memory).to_dict(),
    }
    if bandwidth == "low":
        return data
    days = journal.days(memory.root)
    data["journal"] = {"days": len(days), "turns": sum(_turns(memory, rel) for rel in days)}
    data["memories"] = memories_by_tier(memory)
    data["since_reflection"] = journal.messages_since(memory.root, "reflection")
    from souveraine.laws import install

    data["hooks"] = install.installed(memory.root)
    if bandwidth == "medium":
        return data
    data["memory"] = str(memory.root)
    data["project"] = {"id": memory.project_id, "name": memory.config["project"]["name"]}
    data["last_commit"] = last_commit(memory)
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
    done = memory.git("log", "-1", "--format=%h%x00%cI%x00%s", check=False)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    sha, when, subject = done.stdout.strip().split("\0", 2)
    return {"sha": sha, "date": when, "subject": subject}


def _turns(memory: Memory, relpath: str) -> int:
    text = (memory.root / relpath).read_text(encoding="utf-8")
    return sum(1 for t in journal.parse(text, relpath) if t.role in ("user", "assistant"))
