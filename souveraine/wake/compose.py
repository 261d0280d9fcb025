"""The wake's sections, read from the memory in a fixed order, each cut into parts.

Who you are (the effective expression), what shaped you (constitutive, then foundational),
the pinned system/ files, the synthesized essence, the inner voice's tail, what surfaces now,
recent memory and its totals, and what can be loaded on demand. Nothing here scans
journal/ or memories/ wholesale: the identity keeps its shaping memories in order, recent
memories come from file names, the inner voice is read from its end.
"""

import heapq
import os
from dataclasses import dataclass, field

from souveraine.errors import NoteError
from souveraine.identity.memories import describe
from souveraine.store import notes
from souveraine.store.memory import Memory
from souveraine.wake import tiers
from souveraine.wake.foundations import foundations as read_foundations
from souveraine.wake.foundations import read as read_note
from souveraine.wake.privacy import Viewport

SECTIONS = ("you", "shaped_by", "system", "synthesized", "inner_voice", "surfacing", "memory", "on_demand")
INNER_VOICE = "system/metacognition/subconscious.md"
STATE = "system/state.md"
SYNTHESIZED = "system/synthesized/"
EFFECTIVE = "system/persona/effective.md"
# The pinned files in the order a reader meets them; others of system/ follow, sorted, and
# state comes last. effective.md is the "you" section itself, so it is not repeated.
PINNED_ORDER = ("system/persona/identity.md", "system/persona/principles.md", "system/persona/", "system/human/",
                "system/project/", "system/conventions.md", "system/")


@dataclass
class Part:
    """One piece of a section: its Markdown, its data, and when the budget may drop it."""
    section: str
    key: str                  # a path, an id or a name: what the left-out notice lists
    data: dict
    md: str
    cut: int | None = None    # budget cut order (lowest goes first); None: never cut
    seq: int = 0              # within its cut order, the higher goes first


@dataclass
class Wake:
    identity: str
    model: str
    bandwidth: str
    shared: bool
    limit: int
    parts: list[Part] = field(default_factory=list)
    left_out: list[Part] = field(default_factory=list)
    used: int = 0

    def section(self, name: str) -> list[Part]:
        return [p for p in self.parts if p.section == name]


# Cut order, first dropped first (docs/WAKE.md explains the choice).
CUT_RECENT, CUT_VOICE, CUT_SYNTHESIZED, CUT_SYSTEM, CUT_ON_DEMAND, CUT_SURFACING, CUT_STATE, CUT_FOUNDATIONAL = range(1, 9)


def parts(memory: Memory, handle: str | None, view: Viewport) -> tuple[str, list[Part]]:
    """The identity's handle and every part of the wake, in document order."""
    foundations = read_foundations(memory, handle)
    lifted = tiers.elevated(memory)
    out = [you(foundations, view)]
    out += shaped_by(memory, foundations, lifted, view)
    out += system(memory, view)
    if view.bandwidth != "minimal":
        out += synthesized(memory, view)
        out += inner_voice(memory, view)
    out.append(surfacing(memory, view))
    out += recent(memory, lifted, view)
    out += on_demand(memory, view)
    return (foundations or {}).get("handle", ""), out


# -- who you are ---------------------------------------------------------------------------

def you(found: dict | None, view: Viewport) -> Part:
    if found is None:
        data = {"handle": "", "did": "", "status": "",
                "effective_expression": {"register": "", "walls": [], "subagents": [], "wake_text": ""}}
        md = "No identity is declared in this memory yet; `souveraine identity create HANDLE` makes one."
        return Part("you", "identity", data, md)
    expressed = found["effective"]
    clean = {"register": view.clean(expressed["register"]),
             "walls": [w for w in expressed["walls"] if not view.hides(w)],
             "subagents": [s for s in expressed["subagents"] if not view.hides(s)],
             "wake_text": view.clean(expressed["wake_text"])}
    data = {"handle": found["handle"], "did": found["did"], "status": found["status"], "effective_expression": clean}
    lines = [f"You are **{found['handle']}**, `{found['did']}` ({found['status']})."]
    for title, value in (("Register", clean["register"]), ("Walls", clean["walls"]),
                         ("Subagents", clean["subagents"]), ("Wake text", clean["wake_text"])):
        if value:
            body = "\n".join(f"- {v}" for v in value) if isinstance(value, list) else value.strip()
            lines += ["", f"### {title}", "", body]
    return Part("you", f"identities/{found['handle']}.md", data, "\n".join(lines))


# -- what shaped you -----------------------------------------------------------------------

def shaped_by(memory: Memory, found: dict | None, lifted: dict[str, dict], view: Viewport) -> list[Part]:
    """Constitutive memories (never cut), then foundational ones, each in elevation order.

    The identity's own come from its ``shaped_by`` list; memories elevated with no identity
    (project-level) come from the tier cache, after them, by elevation date.
    """
    items = list(found["shaped_by"]) if found else []
    known = {item["path"] for item in items}
    bound = {"", found["id"]} if found else {""}
    extra = sorted((info.get("elevated", ""), name) for name, info in lifted.items()
                   if f"{tiers.FOLDER}/{name}" not in known and info.get("identity_id", "") in bound)
    items += [{"path": f"{tiers.FOLDER}/{name}", "tier": lifted[name]["tier"]} for _, name in extra]
    items.sort(key=lambda item: item["tier"] != "constitutive")   # stable: keeps elevation order
    held = found["notes"] if found else {}
    out = []
    for n, item in enumerate(items):
        part = _shaping(memory, item, held, view)
        if part is None:
            continue
        if item["tier"] != "constitutive":
            part.cut, part.seq = CUT_FOUNDATIONAL, n
        out.append(part)
    return out


def _shaping(memory: Memory, item: dict, held: dict, view: Viewport) -> Part | None:
    from souveraine.identity import memories

    relpath = item["path"]
    if relpath not in held and not memory.exists(relpath):
        return None
    note = held.get(relpath) or read_note(memory, relpath)
    if not view.allows(relpath, str(note.get("visibility") or "public")):
        return None
    text = view.clean(memories.split(note.body)[0].strip())
    data = {"id": str(note.get("id", "")), "path": relpath, "tier": str(note.get("tier", "")),
            "created": str(note.get("created", ""))[:10], "elevated": str(note.get("elevated", ""))[:10],
            "attesters": [str(a) for a in note.get("attesters") or []], "text": text}
    witnesses = ", ".join(f"`{d}`" for d in data["attesters"]) or "no witness"
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    md = (f"- **{data['tier']}** · {data['created']} (elevated {data['elevated']}) · witnessed by {witnesses}"
          f" · [[{relpath.removesuffix('.md')}]]\n\n{quoted}\n")
    return Part("shaped_by", relpath, data, md)


# -- pinned files --------------------------------------------------------------------------

def system(memory: Memory, view: Viewport) -> list[Part]:
    """The pinned system/ files, persona first and state last; minimal keeps state alone."""
    paths = [] if view.bandwidth == "minimal" else pinned_paths(memory)
    out = []
    for n, relpath in enumerate(paths):
        part = _file_part(memory, "system", relpath, view, 3)
        if part:
            part.cut, part.seq = CUT_SYSTEM, n
            out.append(part)
    if memory.exists(STATE):
        part = _file_part(memory, "system", STATE, view, 3)
        if part:
            part.cut = CUT_STATE
            out.append(part)
    return out


def pinned_paths(memory: Memory) -> list[str]:
    folder = memory.root / "system"
    found = sorted(memory.rel(p) for p in folder.rglob("*.md")) if folder.is_dir() else []
    skip = {INNER_VOICE, STATE, EFFECTIVE}
    found = [p for p in found if p not in skip and not p.startswith(SYNTHESIZED)]
    rank = {p: next(n for n, lead in enumerate(PINNED_ORDER) if p == lead or (lead.endswith("/") and p.startswith(lead)))
            for p in found}
    return sorted(found, key=lambda p: (rank[p], p))


def synthesized(memory: Memory, view: Viewport) -> list[Part]:
    folder = memory.root / SYNTHESIZED
    paths = sorted(memory.rel(p) for p in folder.glob("*.md")) if folder.is_dir() else []
    out = []
    for n, relpath in enumerate(paths):
        part = _file_part(memory, "synthesized", relpath, view, 3)
        if part:
            part.cut, part.seq = CUT_SYNTHESIZED, n
            out.append(part)
    return out


def _file_part(memory: Memory, section: str, relpath: str, view: Viewport, level: int) -> Part | None:
    note = read_note(memory, relpath)
    if not view.allows(relpath, str(note.get("visibility") or "public")):
        return None
    title, body = _title(note.body)
    body = view.clean(body.strip("\n"))
    heading = f"{'#' * level} {title} · `{relpath}`" if title else f"{'#' * level} `{relpath}`"
    data = {"path": relpath, "title": title, "text": body}
    if section == "synthesized":
        data["through"] = str(note.get("through") or "")[:10]
    if relpath == STATE:
        data["state"] = state = _state(note)
        heading += f"\n\nPhase **{state['phase']}**" + (f", unit `{state['unit']}`" if state["unit"] else "") + "."
        if state["files_touched"]:
            heading += " Files touched: " + ", ".join(f"`{p}`" for p in state["files_touched"]) + "."
    body = demote(body, level - 1)
    return Part(section, relpath, data, f"{heading}\n\n{body}\n" if body else f"{heading}\n")


def _state(note: notes.Note) -> dict:
    files = note.get("files_touched") or []
    return {"phase": str(note.get("phase") or "idle"), "unit": str(note.get("unit") or ""),
            "files_touched": [str(p) for p in (files if isinstance(files, list) else [files])]}


def _title(body: str) -> tuple[str, str]:
    """The body's leading ``# Title`` (then the body without it), else no title."""
    stripped = body.lstrip("\n")
    first, _, rest = stripped.partition("\n")
    if first.startswith("# "):
        return first[2:].strip(), rest
    return "", body


def demote(body: str, by: int) -> str:
    """Shift every Markdown heading down ``by`` levels (outside code fences), at most to ######."""
    out, fenced = [], False
    for line in body.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            hashes = len(line) - len(line.lstrip("#"))
            if hashes <= 6 and line[hashes:hashes + 1] in (" ", ""):
                line = "#" * min(6, hashes + by) + line[hashes:]
        out.append(line)
    return "\n".join(out)


# -- the inner voice -----------------------------------------------------------------------

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
        thoughts = innervoice.parse(text)[-count:]
        if len(thoughts) >= count or text.count("\n") < lines:   # enough, or the whole file
            break
        lines *= 4                                                 # blank or stray lines in the tail
    thoughts = [t for t in thoughts if not view.hides(t.text)]
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

    waiting = inbox.read(memory, inbox.PENDING).items if inbox.enabled(memory) else []
    waiting = [i for i in waiting if not view.hides(i.text)]
    chosen = surface.choose(waiting, view.bandwidth)
    shown = surface.Surfacing(view.bandwidth, surfaced=chosen, waiting=len(waiting) - len(chosen),
                              critical_waiting=sum(1 for i in waiting if i.urgency == "critical" and i not in chosen),
                              peek=True)
    lines = [f"- {line}" for line in shown.lines]
    if view.bandwidth != "minimal" and shown.waiting:
        more = "more " if chosen else ""
        lines.append(f"- ({shown.waiting} {more}waiting at lower urgency: `souveraine inbox`)")
    data = {"items": [i.to_dict() for i in chosen], "waiting": shown.waiting, "lines": shown.lines}
    return Part("surfacing", "inbox/pending.md", data, "\n".join(lines) or "Nothing is waiting.", CUT_SURFACING)


# -- recent memory -------------------------------------------------------------------------

def recent(memory: Memory, lifted: dict[str, dict], view: Viewport) -> list[Part]:
    """Totals by tier (never cut), then the newest memories by file name, newest first."""
    listed = tiers.names(memory)
    totals = tiers.totals(listed, lifted)
    md = (f"{totals['all']} memories: {totals['episodic']} episodic, {totals['foundational']} foundational, "
          f"{totals['constitutive']} constitutive.")
    out = [Part("memory", "total", totals, md)]
    if view.bandwidth == "minimal":
        return out
    for n, item in enumerate(newest(memory, listed, memory.config["wake"]["recent_items"], view)):
        line = (f"- {item['created'][:10]} · {item['tier']} · {item['description']} · "
                f"[[{item['path'].removesuffix('.md')}]]")
        out.append(Part("memory", item["path"], item, line, CUT_RECENT, n))
    return out


def newest(memory: Memory, listed: list[str], count: int, view: Viewport) -> list[dict]:
    """The ``count`` newest memories this viewport may see (names start with their date)."""
    if count <= 0 or not listed:
        return []
    want = count
    while True:
        top = heapq.nlargest(want, listed)
        # Names of the oldest day kept may continue below the cut: take that whole day.
        day = top[-1][:10]
        chosen = sorted(({n for n in listed if n[:10] >= day} if len(top) == want else set(top)), reverse=True)
        items = [i for i in (_recent_item(memory, name) for name in chosen) if view.allows(i["path"], i["visibility"])]
        items = [i for i in items if not view.hides(i["description"])]
        items.sort(key=lambda i: (i["created"], i["path"]), reverse=True)
        if len(items) >= count or len(top) < want:
            return items[:count]
        want *= 2


def _recent_item(memory: Memory, name: str) -> dict:
    relpath = f"{tiers.FOLDER}/{name}"
    meta = notes.peek(memory.path(relpath), "id", "tier", "created", "visibility", "description")
    return {"id": str(meta.get("id", "")), "path": relpath, "created": str(meta.get("created", name[:10])),
            "tier": str(meta.get("tier", "episodic")), "visibility": str(meta.get("visibility", "public")),
            "description": " ".join(str(meta.get("description", "")).split())}


# -- on demand -----------------------------------------------------------------------------

ON_DEMAND_CAP = 20


def on_demand(memory: Memory, view: Viewport) -> list[Part]:
    """An index of what can be loaded when needed; never the journal's content."""
    entries = []
    entries += _folder_entries(memory, "reference", "reference")
    if memory.exists("people/_index.md"):
        entries.append(_note_entry(memory, "people/_index.md", "people"))
    entries += _folder_entries(memory, "domains", "domains")
    entries += _skills(memory)
    entries += [
        {"path": "ledger/", "kind": "ledger", "description": "commitments, assumptions, patterns, drift",
         "how": "`souveraine ledger`"},
        {"path": "memories/", "kind": "memories", "description": "every memory, one file each",
         "how": "`souveraine recall WORDS`"},
        {"path": "journal/", "kind": "journal", "description": "raw experience, one file a day",
         "how": "`souveraine recall WORDS --since DATE`"},
        {"path": "archive/", "kind": "archive", "description": "older syntheses",
         "how": "`souveraine recall WORDS --in archive`"},
    ]
    entries = [e for e in entries if view.allows(e["path"]) and not view.hides(e["description"])]
    return [Part("on_demand", e["path"], e, _entry_line(e), CUT_ON_DEMAND, len(entries) - n)
            for n, e in enumerate(entries)]


def _entry_line(entry: dict) -> str:
    said = f" — {entry['description']}" if entry["description"] else ""
    how = f" ({entry['how']})" if entry["how"] else ""
    return f"- `{entry['path']}`{said}{how}"


def _folder_entries(memory: Memory, folder: str, kind: str) -> list[dict]:
    base = memory.root / folder
    if not base.is_dir():
        return []
    children = sorted(e for e in os.listdir(base) if not e.startswith("."))
    out = []
    for name in children[:ON_DEMAND_CAP]:
        relpath = f"{folder}/{name}"
        if (base / name).is_dir():
            count = sum(1 for e in os.scandir(base / name) if e.name.endswith(".md"))
            if count:
                out.append({"path": relpath + "/", "kind": kind, "how": "",
                            "description": f"{count} note{'s' if count != 1 else ''}"})
        elif name.endswith(".md"):
            out.append(_note_entry(memory, relpath, kind))
    if len(children) > ON_DEMAND_CAP:
        out.append({"path": f"{folder}/", "kind": kind, "description": f"and {len(children) - ON_DEMAND_CAP} more",
                    "how": ""})
    return out


def _note_entry(memory: Memory, relpath: str, kind: str) -> dict:
    return {"path": relpath, "kind": kind, "description": _description(memory, relpath), "how": ""}


def _skills(memory: Memory) -> list[dict]:
    base = memory.root / ".skills"
    if not base.is_dir():
        return []
    out = []
    for name in sorted(os.listdir(base)):
        relpath = f".skills/{name}/SKILL.md"
        if memory.exists(relpath):
            out.append({"path": relpath, "kind": "skill", "description": _description(memory, relpath), "how": ""})
    return out


def _description(memory: Memory, relpath: str) -> str:
    try:
        value = notes.peek(memory.path(relpath), "description").get("description", "")
    except (OSError, UnicodeDecodeError, NoteError):   # a broken note still gets its line
        value = ""
    return describe(" ".join(str(value or "").split())) if value else ""

