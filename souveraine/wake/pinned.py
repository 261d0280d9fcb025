"""The pinned files: system/ (persona first, state last) and the synthesized essence.

Each file comes without its frontmatter; its title becomes the part's heading and its own
headings shift under it, so the wake keeps one clean outline.
"""

import re

from souveraine.store import confine, layout, notes
from souveraine.store.memory import Memory
from souveraine.wake.document import CUT_STATE, CUT_SYNTHESIZED, CUT_SYSTEM, Part
from souveraine.wake.foundations import body
from souveraine.wake.foundations import read as read_note
from souveraine.wake.privacy import Viewport

INNER_VOICE = "system/metacognition/subconscious.md"   # its tail only: now.py
STATE = "system/state.md"
SYNTHESIZED = "system/synthesized/"
EFFECTIVE = "system/persona/effective.md"
# The pinned files in the order a reader meets them; others of system/ follow, sorted, and
# state comes last. effective.md is the "you" section itself, so it is not repeated.
PINNED_ORDER = ("system/persona/identity.md", "system/persona/principles.md", "system/persona/", "system/human/",
                "system/project/", "system/domains/", "system/conventions.md", "system/")


def system(memory: Memory, view: Viewport) -> list[Part]:
    """The pinned system/ files, persona first and state last; minimal keeps state alone.

    A file still holding only its template's guidance is named, not pinned: one line says
    where to write what the agent learns, and the wake does not carry the guidance.
    """
    paths = [] if view.bandwidth == "minimal" else pinned_paths(memory)
    out, unwritten = [], []
    for n, relpath in enumerate(paths):
        if relpath in layout.GUIDED and _unwritten(memory, relpath):
            unwritten.append(relpath)
            continue
        part = _file_part(memory, "system", relpath, view, 3)
        if part:
            part.cut, part.seq = CUT_SYSTEM, n
            out.append(part)
    unwritten = [p for p in unwritten if view.allows(p)]
    if unwritten:
        md = "Not written yet (each says what belongs in it): " + ", ".join(f"`{p}`" for p in unwritten) + "."
        out.append(Part("system", "system/", {"path": "system/", "title": "Not written yet", "text": md,
                                              "unwritten": unwritten}, md, CUT_SYSTEM, len(paths)))
    if memory.exists(STATE):
        part = _file_part(memory, "system", STATE, view, 3)
        if part:
            part.cut = CUT_STATE
            out.append(part)
    return out


def _unwritten(memory: Memory, relpath: str) -> bool:
    from souveraine import resources

    template = resources.template_text(relpath)
    return template is not None and body(memory.read_text(relpath)).strip() == body(template).strip()


def _rel(memory: Memory, path) -> str:
    """The path as found, not where a link inside the memory leads."""
    return path.relative_to(memory.root).as_posix()


def pinned_paths(memory: Memory) -> list[str]:
    folder = memory.root / "system"
    found = sorted(_rel(memory, p) for p in folder.rglob("*.md") if confine.inside(memory.root, p)) if folder.is_dir() else []
    skip = {INNER_VOICE, STATE, EFFECTIVE}
    found = [p for p in found if p not in skip and not p.startswith(SYNTHESIZED)]
    rank = {p: next(n for n, lead in enumerate(PINNED_ORDER) if p == lead or (lead.endswith("/") and p.startswith(lead)))
            for p in found}
    return sorted(found, key=lambda p: (rank[p], p))


def synthesized(memory: Memory, view: Viewport) -> list[Part]:
    folder = memory.root / SYNTHESIZED
    paths = sorted(_rel(memory, p) for p in folder.glob("*.md") if confine.inside(memory.root, p)) if folder.is_dir() else []
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


# A setext underline, or a heading the line pass would miss: indented, in a quote or a list.
_NOT_PLAIN = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$|^(?:[ \t]*(?:>|[-*+]|\d+[.)])[ \t]*)+#|^ {1,3}#", re.MULTILINE)


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
    """Shift every Markdown heading down ``by`` levels (never in code), at most to ######.

    Most pinned notes hold no code fence and no setext heading: their headings are the lines
    that start with ``#``, shifted in one pass. The others are read by the Markdown parser."""
    if "```" in body or "~~~" in body or _NOT_PLAIN.search(body):
        from souveraine.language import markdown

        return markdown.demote(body, by)
    out = []
    for line in body.split("\n"):
        if line.startswith("#"):
            hashes = len(line) - len(line.lstrip("#"))
            if hashes <= 6 and line[hashes:hashes + 1] in (" ", "\t", ""):
                line = "#" * min(6, hashes + by) + line[hashes:]
        out.append(line)
    return "\n".join(out)
