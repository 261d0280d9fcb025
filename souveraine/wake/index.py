"""The on-demand index: what can be loaded when needed, and how — never the content itself."""

import os

from souveraine.errors import NoteError
from souveraine.identity.memories import describe
from souveraine.store import notes
from souveraine.store.memory import Memory
from souveraine.wake.document import CUT_ON_DEMAND, Part
from souveraine.wake.privacy import Viewport

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
    from souveraine.store import confine

    children = sorted(e for e in os.listdir(base) if not e.startswith(".") and not confine.leads_out(memory.root, base / e))
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
