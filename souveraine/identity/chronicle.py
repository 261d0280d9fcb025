"""The chronicle: chronicle/<handle>.md, the append-only log of an identity's witnessed moments.

Kinds: ``recognition`` (a memory of this identity was witnessed), ``seal`` (this identity
witnessed another's memory), ``forgetting`` (a shaping memory was forgotten). Entries are
only ever appended; the laws refuse any other change.
"""

from souveraine.store import clock, notes
from souveraine.store.memory import Memory

FOLDER = "chronicle"
PROJECT = "_project"   # the chronicle of memories bound to no identity


def path_for(handle: str | None) -> str:
    return f"{FOLDER}/{handle or PROJECT}.md"


def header(handle: str | None) -> str:
    who = f"the identity {handle}" if handle else "this memory's project-level memories"
    note = notes.new({
        "type": "chronicle",
        "identity": handle or "",
        "description": f"The witnessed moments of {who}: recognitions, seals, forgettings. Append-only.",
        "tags": ["chronicle"],
    }, f"# Chronicle of {handle or 'the project'}\n")
    return notes.dumps(note)


def entry(kind: str, fields: dict, moment=None) -> str:
    moment = (moment or clock.now()).replace(microsecond=0).isoformat()
    lines = [f"- {key}: {_value(value)}" for key, value in fields.items() if value not in (None, "", [])]
    return "\n".join(["", f"## {moment} · {kind}", "", *lines, ""]) + "\n"


def append(memory: Memory, change, handle: str | None, kind: str, fields: dict) -> str:
    """Add one entry to the chronicle of ``handle`` inside ``change``; creates the file if needed."""
    relpath = path_for(handle)
    text = entry(kind, fields)
    if memory.exists(relpath):
        change.append(relpath, text)
    else:
        change.write(relpath, header(handle) + text)
    return relpath


def _value(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(f"`{v}`" for v in value)
    return f"`{value}`" if str(value).startswith(("did:", "memories/")) or _looks_like_id(str(value)) else str(value)


def _looks_like_id(text: str) -> bool:
    return len(text) in (32, 36, 64) and all(c in "0123456789abcdef-" for c in text)
