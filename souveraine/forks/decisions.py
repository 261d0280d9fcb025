"""The decisions log (ADRs in reference/decisions/) and the ones a unit's goal touches.

ORIENT reads the relevant ADRs before any work (constitution §IX.4 point 4): an ADR is
relevant when its title, description or tags share a word with the goal (stemmed, common
words left out). The strongest matches come first; superseded ones are named as such.
"""

import posixpath

from souveraine.errors import NoteError
from souveraine.store import layout, notes
from souveraine.store.memory import Memory

INDEX_NAMES = ("_index.md", "index.md", "readme.md")


def all_decisions(memory: Memory) -> list[dict]:
    folder = memory.root / layout.DECISIONS
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.rglob("*.md")):
        rel = memory.rel(path)
        if path.name.lower() in INDEX_NAMES:
            continue
        try:
            meta = notes.peek(path, "title", "description", "status", "tags")
            head = _heading(path)
        except (OSError, UnicodeDecodeError, NoteError):
            continue
        title = str(meta.get("title") or head or posixpath.basename(rel)[:-3])
        tags = meta.get("tags") or []
        out.append({"path": rel, "title": title, "description": " ".join(str(meta.get("description") or "").split()),
                    "status": str(meta.get("status") or ""),
                    "tags": [str(t) for t in (tags if isinstance(tags, list) else [tags])]})
    return out


def relevant(memory: Memory, goal: str) -> list[dict]:
    """The ADRs whose words meet the goal's, strongest first, each with the words shared."""
    from souveraine.language.words import content_stems

    wanted = content_stems(goal)
    if not wanted:
        return []
    found = []
    for adr in all_decisions(memory):
        have = content_stems(" ".join([adr["title"], adr["description"], *adr["tags"], adr["path"].replace("-", " ")]))
        shared = sorted(wanted & have)
        if shared:
            found.append({**adr, "shared": shared})
    return sorted(found, key=lambda a: (-len(a["shared"]), a["status"] == "superseded", a["path"]))


def _heading(path) -> str:
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle):
            if line.startswith("# "):
                return line[2:].strip()
            if n > 40:
                break
    return ""
