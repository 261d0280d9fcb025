"""What the agent must know now: the inner voice's tail, what surfaces, recent memory.

The inner voice is read from the end of its file; recent memory from the newest file names
in memories/ and its year folders (they start with the creation date) and the first lines of
those files only.
"""

import os

from souveraine.errors import NoteError
from souveraine.sensorium import bandwidth as classes
from souveraine.sensorium import telemetry
from souveraine.store import notes
from souveraine.store.layout import memory_name
from souveraine.store.memory import Memory
from souveraine.identity.catalog import FOLDER, Catalog
from souveraine.wake.document import CUT_RECENT, CUT_SURFACING, CUT_VOICE, Part
from souveraine.wake.privacy import Viewport

INNER_VOICE = "system/metacognition/subconscious.md"


def inner_voice(memory: Memory, view: Viewport) -> list[Part]:
    """The newest thoughts, read from the end of the file; oldest are cut first."""
    from souveraine.tempos import innervoice

    path = memory.path(INNER_VOICE)
    if not path.is_file() or not view.allows(INNER_VOICE):
        return []
    count = memory.config["wake"]["inner_voice_lines"]
    thoughts, lines = [], count
    while count > 0:
        text = tail(path, lines)
        thoughts = innervoice.live(memory, innervoice.parse(text))[-count:]
        if len(thoughts) >= count or text.count("\n") < lines:   # enough, or the whole file
            break
        lines *= 4                                                 # blank or stray lines in the tail
    thoughts = [t for t in thoughts if not view.hides(t.text) and classes.passes(view.bandwidth, t.urgency)]
    return [Part("inner_voice", t.render(), t.to_dict(), f"- {t.render()}", CUT_VOICE, len(thoughts) - n)
            for n, t in enumerate(thoughts)]


def tail(path, lines: int, block: int = 8192) -> str:
    """The last ``lines`` lines of a file, reading backwards in blocks (its size does not matter)."""
    with open(path, "rb") as handle:
        end = position = handle.seek(0, os.SEEK_END)
        data = b""
        while position > 0 and data.count(b"\n") <= lines:
            step = min(block, position)
            position -= step
            handle.seek(position)
            data = handle.read(step) + data
    kept = data.decode("utf-8", "replace").splitlines()[-lines:] if end and lines > 0 else []
    return "".join(line + "\n" for line in kept)


# -- what surfaces now ---------------------------------------------------------------------

def surfacing(memory: Memory, view: Viewport) -> Part:
    """What would surface now at this bandwidth (surface's own choice), moving nothing."""
    from souveraine.tempos import inbox, surface

    waiting = [i for i in telemetry.pending(memory) if not view.hides(i.text)]
    chosen = surface.choose(waiting, view.bandwidth)
    shown = surface.Surfacing(view.bandwidth, surfaced=chosen, waiting=len(waiting) - len(chosen),
                              critical_waiting=sum(1 for i in waiting if i.urgency == "critical" and i not in chosen),
                              peek=True)
    lines = [f"- {line}" for line in shown.lines]
    rest = [i for i in inbox.by_urgency(waiting) if i not in chosen]
    if classes.shows(view.bandwidth, "inbox") and rest:         # high: the inbox's contents
        lines += [f"- waiting · {i.urgency} · {i.text}" for i in rest[:classes.INBOX_LISTED]]
        if len(rest) > classes.INBOX_LISTED:
            lines.append(f"- (and {len(rest) - classes.INBOX_LISTED} more: `souveraine inbox`)")
    elif view.bandwidth == "medium" and rest:
        lines.append(f"- ({len(rest)} {'more ' if chosen else ''}waiting at lower urgency: `souveraine inbox`)")
    data = {"items": [i.to_dict() for i in chosen], "waiting": shown.waiting, "lines": shown.lines}
    empty = "Nothing urgent." if view.bandwidth == "low" else "Nothing is waiting."
    return Part("surfacing", "inbox/pending.md", data, "\n".join(lines) or empty, CUT_SURFACING)


# -- recent memory -------------------------------------------------------------------------

def recent(memory: Memory, shelf: Catalog, view: Viewport) -> list[Part]:
    """Totals by tier (never cut), then the newest memories, newest first."""
    totals = shelf.totals()
    md = (f"{totals['all']} memories: {totals['episodic']} episodic, {totals['foundational']} foundational, "
          f"{totals['constitutive']} constitutive.")
    out = [Part("memory", "total", totals, md)]
    if not classes.shows(view.bandwidth, "recent"):
        return out
    for n, item in enumerate(newest(memory, shelf.newest, memory.config["wake"]["recent_items"], view)):
        line = (f"- {item['created'][:10]} · {item['tier']} · {item['description']} · "
                f"[[{item['path'].removesuffix('.md')}]]")
        out.append(Part("memory", item["path"], item, line, CUT_RECENT, n))
    return out


def newest(memory: Memory, names: list[str], count: int, view: Viewport) -> list[dict]:
    """The ``count`` newest memories this viewport may see, from names given newest first.

    Names order days, not times within a day, so the day of the last one taken is read whole.
    """
    items, day = [], None
    for name in names:
        if len(items) >= count and memory_name(name)[:10] != day:
            break
        item = _recent_item(memory, name)
        if item is not None and view.allows(item["path"], item["visibility"]) and not view.hides(item["description"]):
            items.append(item)
            day = memory_name(name)[:10]
    items.sort(key=lambda i: (i["created"], i["path"]), reverse=True)
    return items[:count]


def _recent_item(memory: Memory, name: str) -> dict | None:
    relpath = f"{FOLDER}/{name}"
    try:
        meta = notes.peek(memory.path(relpath), "id", "tier", "created", "visibility", "description")
    except (OSError, UnicodeDecodeError, NoteError):   # deleted and not committed yet, or unreadable
        return None
    return {"id": str(meta.get("id", "")), "path": relpath, "created": str(meta.get("created", memory_name(name)[:10])),
            "tier": str(meta.get("tier", "episodic")), "visibility": str(meta.get("visibility", "public")),
            "description": " ".join(str(meta.get("description", "")).split())}
