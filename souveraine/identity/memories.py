"""Memories: one file each in memories/<year>/, tiered episodic, foundational or constitutive.

Where a memory lives is ``store.layout``'s rule (``memory_path``); older memories may still sit
in memories/ itself until 'doctor --fix' moves them, and everything here finds both.

A memory's body is its text, then (once witnessed) an ``## Attestations`` section holding
a fenced JSON list. ``content_sha256`` covers the text only, so attestations can be added
without changing what they sign.
"""

import hashlib
import json
import re
import unicodedata

from souveraine.errors import Refused, UsageError
from souveraine.store import clock, layout, notes
from souveraine.store.memory import Memory

FOLDER = "memories"
TIERS = ("episodic", "foundational", "constitutive")
ELEVATED = ("foundational", "constitutive")
VISIBILITIES = ("public", "private")
ATTESTATIONS = "## Attestations"
_SECTION = re.compile(r"\n*^## Attestations[ \t]*\n+```json\n(?P<json>.*?)\n```[ \t]*\n*\Z", re.MULTILINE | re.DOTALL)


def canonical(text: str) -> str:
    """The hashed form of a memory's text: LF line ends (a lone CR too), no byte order mark, no
    leading lines of only whitespace, no trailing whitespace, one final newline.

    Exactly what a Markdown file gives back once written: a reader translates a lone CR,
    and the frontmatter's closing fence swallows a first line of only whitespace.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).rstrip() + "\n"


def content_sha256(text: str) -> str:
    return hashlib.sha256(canonical(text).encode("utf-8")).hexdigest()


def split(body: str) -> tuple[str, list | None]:
    """A body's text and its attestations (None when it has no ``## Attestations`` section).

    The section counts only as the body's last part: a heading alone, then one fenced
    ``json`` block, then nothing.
    """
    body = body.replace("\r\n", "\n")
    match = _SECTION.search(body)
    if not match:
        return body, None
    try:
        found = json.loads(match["json"])
    except ValueError:
        found = "unreadable"
    return body[: match.start()], found if isinstance(found, list) else [found]


def join(text: str, attestations: list[dict]) -> str:
    """The body of a memory: its canonical text, then its attestations when it has any."""
    body = canonical(text)
    if not attestations:
        return body
    block = json.dumps(attestations, indent=2, ensure_ascii=False)
    return f"{body}\n{ATTESTATIONS}\n\n```json\n{block}\n```\n"


def hash_matches(note: notes.Note) -> bool:
    text, _ = split(note.body)
    return content_sha256(text) == str(note.get("content_sha256", ""))


def slug(text: str, words: int = 6) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    parts = re.findall(r"[a-z0-9]+", plain)[:words]
    return "-".join(parts) or "memory"


def describe(text: str, limit: int = 120) -> str:
    """The first sentence, for the description property."""
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0].strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def path_for(created, text: str, memory_id: str) -> str:
    """A new memory's path: memories/<year>/<date>-<words>-<id>.md (the year of ``created``)."""
    return layout.memory_path(f"{created:%Y-%m-%d}-{slug(text)}-{memory_id.replace('-', '')[:8]}.md")


def paths(memory: Memory, pattern: str = "*.md") -> list[str]:
    """The relative paths of the memories whose names match ``pattern``, in either place, sorted by name."""
    folder = memory.root / FOLDER
    if not folder.is_dir():
        return []
    found = [p.relative_to(memory.root).as_posix() for glob in (pattern, f"*/{pattern}") for p in folder.glob(glob)]
    return sorted((p for p in found if layout.is_memory(p)), key=lambda p: (layout.memory_name(p), p))


def link(relpath: str) -> str:
    """The wikilink to a memory file: ``[[memories/<year>/…]]`` without its extension."""
    return f"[[{relpath.removesuffix('.md')}]]"


def unlink_path(wikilink: str) -> str:
    return str(wikilink).strip().removeprefix("[[").removesuffix("]]").split("|", 1)[0] + ".md"


def find(memory: Memory, memory_id: str) -> str:
    """The relative path of the memory with this id (or a unique prefix of it)."""
    token = memory_id.replace("-", "").lower()
    if len(token) < 8 or not re.fullmatch(r"[0-9a-f]+", token):
        raise UsageError(f"'{memory_id}' is not a memory id; give the uuid or its first 8 hex digits")
    hits = [p for p in paths(memory, f"*-{token[:8]}.md")
            if str(notes.peek(memory.path(p), "id").get("id", "")).replace("-", "").startswith(token)]
    if not hits:
        raise UsageError(f"no memory with id {memory_id} in this memory; 'souveraine recall' finds memories by their words",
                         code="memory_not_here")
    if len(hits) > 1:
        raise UsageError(f"id {memory_id} is ambiguous; give more of it")
    return hits[0]


def load(memory: Memory, memory_id: str) -> tuple[str, notes.Note]:
    relpath = find(memory, memory_id)
    return relpath, notes.read(memory.path(relpath))


def new_note(text: str, *, identity_id: str = "", key: str = "", visibility: str = "public",
             source: str = "", memory_id: str | None = None, created=None) -> tuple[str, notes.Note]:
    """The path and note of a new episodic memory (not yet written)."""
    if not text or not text.strip():
        raise UsageError("the memory's text is empty; give the words to remember")
    if visibility not in VISIBILITIES:
        raise UsageError(f"visibility must be public or private, not '{visibility}'")
    if split(text)[1] is not None:
        raise UsageError(f"the text ends with an '{ATTESTATIONS}' section, which only the witness writes; remove it")
    import uuid

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


def binding(memory: Memory, identity: str | None = None, agent_id: str | None = None) -> str:
    """The identity id a new memory is bound to.

    ``identity`` (a handle) must name an active identity here. ``agent_id`` binds only when it
    is the uuid of an active identity of this memory; anything else stays project-level ('').
    """
    from souveraine.identity import identities

    if identity:
        return identities.load(memory, identity).require_active().id
    if agent_id:
        found = identities.by_id(memory, agent_id.strip())
        return found.id if found and found.status == "active" else ""
    return ""


def remember(memory: Memory, text: str, *, change=None, identity: str | None = None,
             agent_id: str | None = None, **fields) -> dict:
    """Write one episodic memory and commit it (or add it to an open ``change``)."""
    if identity or agent_id:
        fields["identity_id"] = binding(memory, identity, agent_id)
    relpath, note = new_note(text, **fields)
    result = {"id": note["id"], "path": relpath, "identity_id": note["identity_id"]}
    if change is not None:
        change.write_note(relpath, note)
        return result
    with memory.change(f"feat(memory): remember {describe(note.body, 60)}") as own:
        own.write_note(relpath, note)
    return {**result, "commit": own.sha}


def set_visibility(memory: Memory, memory_id: str, visibility: str) -> dict:
    """Mark a memory private or public (a property only: its hash and witnesses are untouched)."""
    if visibility not in VISIBILITIES:
        raise UsageError(f"visibility must be public or private, not '{visibility}'")
    relpath, note = load(memory, memory_id)
    if note.get("visibility") == visibility:
        return {"id": note["id"], "path": relpath, "visibility": visibility, "commit": None}
    note["visibility"] = visibility
    with memory.change(f"feat(memory): make {note['id'][:8]} {visibility}") as change:
        change.write_note(relpath, note)
    return {"id": note["id"], "path": relpath, "visibility": visibility, "commit": change.sha}


def require_intact(relpath: str, note: notes.Note) -> None:
    if not hash_matches(note):
        raise Refused(f"{relpath}: its text no longer matches its content_sha256 (edited by hand); "
                      "restore it, or forget it and remember the new text", code="content_changed")
