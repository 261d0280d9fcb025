"""Who you are and what shaped you, as identity's compose.foundations gives it, read cheaply.

The same composition (``compose.compose`` over the identity's ``shaped_by``, constitutive
first, each tier in elevation order) with the same files, but each read through the flat
properties reader: a YAML parser costs ~5 ms a note, and a wake reads every shaping memory.
"""

from souveraine.errors import UsageError
from souveraine.store import layout, notes
from souveraine.store.memory import Memory


def read(memory: Memory, relpath: str) -> notes.Note:
    """A note's properties and body; the YAML parser only for frontmatter that needs it."""
    path = memory.path(relpath)
    text = path.read_text(encoding="utf-8")
    meta = notes.properties(text)
    if meta is None:
        return notes.parse(text, path)
    return notes.Note(meta, body(text), path)


def body(text: str) -> str:
    """The text after the frontmatter (all of it when there is none)."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---", 3)
    after = text.find("\n", end + 4) if end >= 0 else -1
    return text if end < 0 else ("" if after < 0 else text[after + 1:])


def foundations(memory: Memory, handle: str | None = None) -> dict | None:
    """``{handle, id, did, status, shaped_by[], effective, notes}``, or None when no identity is declared."""
    from souveraine.identity import compose, identities

    chosen = handle or _default(memory)
    if chosen is None:
        return None
    identities.check_handle(chosen)
    if not memory.exists(identities.path_for(chosen)):
        identities.load(memory, chosen)        # raises its own 'no identity' error
    found = identities.from_note(read(memory, identities.path_for(chosen)), chosen)
    shaped, held = [], {}
    for order, listed in enumerate(found.shaped_by, 1):
        relpath = layout.located(listed, memory.exists)     # a memory moved to its year folder is still found
        if relpath is None:
            continue
        note = held[relpath] = read(memory, relpath)
        shaped.append({"id": str(note.get("id", "")), "path": relpath, "tier": str(note.get("tier", "")),
                       "elevated": str(note.get("elevated", "")), "order": order,
                       "attesters": [str(a) for a in note.get("attesters") or []], "patch": compose.patch_of(note)})
    shaped.sort(key=lambda item: (item["tier"] != "constitutive", item["order"]))
    return {"handle": found.handle, "id": found.id, "did": found.did, "status": found.status,
            "shaped_by": shaped, "effective": compose.compose(found.declared, shaped).plain(), "notes": held,
            "declared": found.declared}


def _default(memory: Memory) -> str | None:
    """The [project] identity when it exists, else the only one; None when there is none."""
    from souveraine.identity import identities

    default = memory.config["project"]["identity"]
    if default and memory.exists(identities.path_for(default)):
        return default
    folder = memory.root / identities.FOLDER
    found = sorted(p.stem for p in folder.glob("*.md")) if folder.is_dir() else []
    if len(found) > 1:
        raise UsageError(f"this memory has {len(found)} identities; say which with --identity HANDLE", code="unknown_identity")
    return found[0] if found else None
