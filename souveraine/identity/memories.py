"""Memories: one file each in memories/, tiered episodic, foundational or constitutive."""

import hashlib
import re
import unicodedata
import uuid
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.store import clock, notes
from souveraine.store.memory import Memory

FOLDER = "memories"
TIERS = ("episodic", "foundational", "constitutive")
VISIBILITIES = ("public", "private")


def canonical(text: str) -> str:
    """The hashed form of a memory's text: no leading or trailing blank lines, one final newline."""
    return text.replace("\r\n", "\n").strip("\n").rstrip() + "\n"


def content_sha256(text: str) -> str:
    return hashlib.sha256(canonical(text).encode("utf-8")).hexdigest()


def slug(text: str, words: int = 6) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    parts = re.findall(r"[a-z0-9]+", plain)[:words]
    return "-".join(parts) or "memory"


def describe(text: str, limit: int = 120) -> str:
    """The first sentence, for the description property."""
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0].strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def path_for(created, text: str, memory_id: str) -> str:
    return f"{FOLDER}/{created:%Y-%m-%d}-{slug(text)}-{memory_id.replace('-', '')[:8]}.md"


def find(memory: Memory, memory_id: str) -> str:
    """The relative path of the memory with this id (or a unique prefix of it)."""
    token = memory_id.replace("-", "").lower()
    if len(token) < 8 or not re.fullmatch(r"[0-9a-f]+", token):
        raise UsageError(f"'{memory_id}' is not a memory id; give the uuid or its first 8 hex digits")
    folder = memory.root / FOLDER
    hits = [p for p in folder.glob(f"*-{token[:8]}.md")] if folder.is_dir() else []
    hits = [p for p in hits if notes.read(p).get("id", "").replace("-", "").startswith(token)]
    if not hits:
        raise UsageError(f"no memory with id {memory_id}; 'souveraine recall' finds memories by their words")
    if len(hits) > 1:
        raise UsageError(f"id {memory_id} is ambiguous; give more of it")
    return memory.rel(hits[0])


def new_note(text: str, *, identity_id: str = "", key: str = "", visibility: str = "public",
             source: str = "", memory_id: str | None = None, created=None) -> tuple[str, notes.Note]:
    """The path and note of a new episodic memory (not yet written)."""
    if not text or not text.strip():
        raise UsageError("the memory's text is empty; give the words to remember")
    if visibility not in VISIBILITIES:
        raise UsageError(f"visibility must be public or private, not '{visibility}'")
    memory_id = memory_id or str(uuid.uuid4())
    created = created or clock.now().replace(microsecond=0)
    body = canonical(text)
    note = notes.new({
        "id": memory_id,
        "tier": "episodic",
        "created": created.isoformat(),
        "identity_id": identity_id,
        "content_sha256": content_sha256(body),
        "key": key,
        "visibility": visibility,
        "source": source,
        "description": describe(body),
        "tags": ["memory", "episodic"],
    }, body)
    return path_for(created, body, memory_id), note


def remember(memory: Memory, text: str, *, change=None, **fields) -> dict:
    """Write one episodic memory and commit it (or add it to an open ``change``)."""
    relpath, note = new_note(text, **fields)
    if change is not None:
        change.write_note(relpath, note)
        return {"id": note["id"], "path": relpath}
    with memory.change(f"feat(memory): remember {describe(note.body, 60)}") as own:
        own.write_note(relpath, note)
    return {"id": note["id"], "path": relpath, "commit": own.sha}
