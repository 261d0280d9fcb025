"""Notes an agent reads and edits itself: people/, domains/, reference/, system/, troubleshooting/…

``read``, ``write``, ``edit`` (append, prepend, replace a section, find and replace),
``move`` and ``delete`` work on the memory's Markdown notes, one commit each, under the laws like every
other change: a refusal carries the law's own words. Regions with their own tempo or law
are not theirs — the journal and every append-only file, memories/ (remember, elevate,
forget), the witness (identities/, covenants/, chronicle/), the inbox and the ledger, the
generated expression, the inner voice and the archivist's syntheses — and each refusal
names the tool that does write there. ``links`` and ``context`` follow a note's wikilinks
(``build_context``: the note and what it links to, depth N).
"""

import posixpath

from souveraine.errors import Refused, UsageError
from souveraine.store import notes
from souveraine.store.memory import Memory

# Regions these tools leave alone, and where to go instead (the first match speaks).
ELSEWHERE = (
    ("journal/", "the journal is raw experience, append-only: persist adds to it"),
    ("memories/", "memories are written by remember, raised by elevate and deleted by forget"),
    ("identities/", "identities change through 'souveraine identity' and elevate, witnessed"),
    ("covenants/", "covenants change through 'souveraine covenant', witnessed"),
    ("chronicle/", "the chronicle is append-only: the witness writes it"),
    ("inbox/", "the inbox changes through inbox_add and surface"),
    ("ledger/", "the ledger changes through persist and ledger_close"),
    ("system/persona/effective.md", "the effective expression is generated: 'souveraine identity recompose'"),
    ("system/metacognition/", "the inner voice is append-only: the tempos write it"),
    ("system/synthesized/", "the essence is the archivist's: archive writes it"),
    ("archive/", "older syntheses are kept as they were"),
    ("system/state.md", "workflow state changes through 'souveraine state set'"),
)
BODY_CHARS = 4000       # of each note build_context returns; the rest stays a read_note away


def check_path(memory: Memory, relpath: str, writing: bool = False) -> str:
    """A note's path inside the memory: POSIX, relative, a .md file, nothing hidden but .skills/."""
    if not isinstance(relpath, str) or not relpath.strip():
        raise UsageError("give the note's path inside the memory, like people/lea.md")
    relpath = relpath.strip()
    relpath = relpath[2:] if relpath.startswith("./") else relpath
    if "\\" in relpath:
        raise UsageError(f"'{relpath}': separate folders with '/', like people/lea.md")
    memory.path(relpath)        # refuses '..', absolute paths and escapes by symlink
    parts = relpath.split("/")
    if not relpath.endswith(".md") or any(p.startswith(".") and p != ".skills" for p in parts):
        raise UsageError(f"'{relpath}' is not a note; notes are the memory's .md files, like people/lea.md")
    if writing:
        for prefix, why in ELSEWHERE:
            if relpath == prefix or relpath.startswith(prefix):
                raise Refused(f"{relpath}: {why}", code="elsewhere")
        if memory.append_only(relpath):
            raise Refused(f"{relpath} is append-only: its history is kept as written", code="append_only")
    return relpath


def read(memory: Memory, relpath: str) -> dict:
    relpath = check_path(memory, relpath)
    if not memory.exists(relpath):
        raise UsageError(f"no note at '{relpath}'; list_notes shows a folder's notes")
    text = memory.read_text(relpath)
    note = notes.parse(text, memory.path(relpath))
    return {"path": relpath, "properties": _plain(note.meta), "body": note.body, "links": links(memory, relpath, text)}


def write(memory: Memory, relpath: str, content: str, description: str | None = None) -> dict:
    """Create the note, or replace its text (its properties kept unless ``content`` brings its own)."""
    relpath = check_path(memory, relpath, writing=True)
    given = notes.parse(content, memory.path(relpath))
    existed = memory.exists(relpath)
    note = given
    if not given.meta:
        old = notes.parse(memory.read_text(relpath)) if existed else notes.new({})
        note = notes.Note(old.meta, content)
    if description:
        note["description"] = description.strip()
    note.body = note.body.strip("\n") + "\n" if note.body.strip() else ""     # a file ends with its line's end
    if not note.get("description"):
        raise UsageError(f"give {relpath} a description: one sentence saying what the note holds "
                         "(every note has one, for the wake's index and Obsidian)")
    verb = "edit" if existed else "add"
    with memory.change(f"{'docs' if existed else 'feat'}(memory): {verb} {relpath}") as change:
        change.write(relpath, notes.dumps(note))
    return {"path": relpath, "created": not existed, "commit": change.sha}


OPERATIONS = ("append", "prepend", "replace_section", "find_replace")


def edit(memory: Memory, relpath: str, operation: str, content: str, section: str | None = None,
         find: str | None = None, expected_replacements: int = 1) -> dict:
    relpath = check_path(memory, relpath, writing=True)
    if operation not in OPERATIONS:
        raise UsageError(f"unknown operation '{operation}'; use one of: {', '.join(OPERATIONS)}")
    if not memory.exists(relpath):
        raise UsageError(f"no note at '{relpath}'; write_note creates one")
    note = notes.parse(memory.read_text(relpath), memory.path(relpath))
    if operation == "append":
        note.body = note.body.rstrip("\n") + "\n\n" + content.strip("\n") + "\n"
    elif operation == "prepend":
        note.body = content.strip("\n") + "\n\n" + note.body.lstrip("\n")
    elif operation == "replace_section":
        note.body = _replace_section(note.body, section, content, relpath)
    else:
        note.body = _find_replace(note.body, find, content, expected_replacements, relpath)
    with memory.change(f"docs(memory): {operation.replace('_', ' ')} in {relpath}") as change:
        change.write(relpath, notes.dumps(note))
    return {"path": relpath, "operation": operation, "commit": change.sha}


def _replace_section(body: str, section: str | None, content: str, relpath: str) -> str:
    from souveraine.language import markdown

    if not section or not section.strip():
        raise UsageError("replace_section needs the section's heading, like 'Contact' or '## Contact'")
    wanted = section.strip().lstrip("#").strip().casefold()
    found = markdown.headings(body)
    heading = next((h for h in found if h.text.casefold() == wanted), None)
    if heading is None:
        known = ", ".join(f"'{h.text}'" for h in found) or "none"
        raise UsageError(f"{relpath} has no heading '{section.strip()}'; its headings: {known}")
    lines = body.split("\n")
    end = next((h.line for h in found if h.line > heading.line and h.level <= heading.level), len(lines))
    kept_tail = lines[end:]
    new = lines[:heading.line + 1] + ["", content.strip("\n"), ""] + kept_tail
    return "\n".join(new).rstrip("\n") + "\n"


def _find_replace(body: str, find: str | None, content: str, expected: int, relpath: str) -> str:
    if not find:
        raise UsageError("find_replace needs the text to find (find) and its replacement (content)")
    count = body.count(find)
    if count != expected:
        raise UsageError(f"'{find}' occurs {count} time(s) in {relpath}, not {expected}; "
                         "quote more of it, or set expected_replacements")
    return body.replace(find, content)


def move(memory: Memory, relpath: str, to: str) -> dict:
    """Move a note (one ``refactor`` commit), then point every link to it at its new place, and its
    own links that would name something else from there at what they named (one ``fix``).

    Refused, with nothing changed, when an append-only note links to it by a path the move
    would break: the journal cannot be rewritten to follow.
    """
    from souveraine.care import links

    relpath = check_path(memory, relpath, writing=True)
    to = check_path(memory, to, writing=True)
    if not memory.exists(relpath):
        raise UsageError(f"no note at '{relpath}'")
    if memory.exists(to):
        raise UsageError(f"'{to}' already exists; choose another path or edit that note")
    with memory.lock():
        before = links.Vault.of(memory.root)
        after = links.Vault((before.files - {relpath}) | {to}, lambda p: before.text(relpath if p == to else p))
        follow: dict[str, str] = {}
        broken_for_good = []
        for source in before.notes:
            if source == relpath:
                continue
            pointing = [link for link in before.links(source) if before.resolve(link, source).target == relpath]
            stale = [link for link in pointing if after.resolve(link, source).target != to]
            if not stale:
                continue
            if memory.append_only(source):
                broken_for_good.append(source)
                continue
            follow[source] = links.rewrite(before.text(source), lambda link, s=source: (
                links.retarget(link, to, s) if link in stale else None))
        if broken_for_good:
            raise Refused(f"moving {relpath} would break links in append-only notes "
                          f"({', '.join(sorted(broken_for_good)[:3])}{'…' if len(broken_for_good) > 3 else ''}); "
                          "they cannot be rewritten to follow, so the note stays where it is", code="append_only")
        own = _own_links(before, after, relpath, to)
        if own != before.text(relpath):
            follow[to] = own
        with memory.change(f"refactor(memory): move {relpath} to {to}") as change:
            change.write(to, before.text(relpath))
            change.delete(relpath)
        moved = change.sha
        relinked = None
        if follow:
            with memory.change(f"fix(memory): links follow {relpath} to {to}") as change:
                for source, text in follow.items():
                    change.write(source, text)
            relinked = change.sha
    return {"path": to, "from": relpath, "commit": moved, "links_updated": sorted(follow), "links_commit": relinked}


def _own_links(before, after, relpath: str, to: str) -> str:
    """The moved note's text, its relative links pointed again at what they named from its old place."""
    from souveraine.care import links

    def follow(link):
        was = before.resolve(link, relpath)
        if not was.ok:
            return None
        target = to if was.target == relpath else was.target
        return None if after.resolve(link, to).target == target else links.retarget(link, target, to)

    return links.rewrite(before.text(relpath), follow)


def delete(memory: Memory, relpath: str) -> dict:
    """Delete a note (one commit; git keeps what it said), refused while another note links to it."""
    from souveraine.care import links as resolver

    relpath = check_path(memory, relpath, writing=True)
    if not memory.exists(relpath):
        raise UsageError(f"no note at '{relpath}'; list_notes shows a folder's notes")
    with memory.lock():
        linking = sorted(resolver.Vault.of(memory.root).inbound().get(relpath, ()))
        if linking:
            shown = ", ".join(linking[:3]) + ("…" if len(linking) > 3 else "")
            raise Refused(f"{relpath} is linked from {len(linking)} note(s) ({shown}); deleting it would break "
                          "those links: edit them first (edit_note), or move the note instead (move_note)",
                          code="linked")
        with memory.change(f"docs(memory): delete {relpath}") as change:
            change.delete(relpath)
    return {"path": relpath, "deleted": True, "commit": change.sha}


def links(memory: Memory, relpath: str, text: str | None = None) -> list[dict]:
    """The note's outgoing wikilinks and Markdown links, each with the file it resolves to (or None)."""
    from souveraine.care import links as resolver

    vault = resolver.Vault(resolver.walk(memory.root), lambda p: text if p == relpath and text is not None
                           else memory.read_text(p))
    out = []
    for link in vault.links(relpath):
        found = vault.resolve(link, relpath)
        out.append({"link": link.raw, "target": found.target if found.ok else None, "anchor": link.anchor})
    return out


def context(memory: Memory, relpath: str, depth: int = 1, limit: int = 20) -> dict:
    """The note and the notes it links to, breadth first, ``depth`` links away, at most ``limit`` notes.

    A link to a journal turn (``#^block``) brings that turn alone, not its whole day.
    """
    from souveraine.care import links as resolver

    relpath = check_path(memory, relpath)
    if not memory.exists(relpath):
        raise UsageError(f"no note at '{relpath}'; list_notes shows a folder's notes")
    vault = resolver.Vault.of(memory.root)
    found, seen, queue = [], {(relpath, None)}, [(relpath, None, 0)]
    while queue and len(found) < limit:
        path, anchor, level = queue.pop(0)
        found.append(_context_note(vault, path, anchor, level))
        if level == depth or anchor:
            continue
        for link in vault.links(path):
            hit = vault.resolve(link, path)
            key = (hit.target, link.anchor if link.block else None)
            if hit.ok and hit.target.endswith(".md") and key not in seen:
                seen.add(key)
                queue.append((*key, level + 1))
    return {"root": relpath, "depth": depth, "notes": found, "left_out": len(queue)}


def _context_note(vault, path: str, anchor: str | None, level: int) -> dict:
    from souveraine.store import journal

    text = vault.text(path)
    note = notes.parse(text)
    body = note.body
    if anchor and anchor.startswith("^") and path.startswith(journal.ROOT + "/"):
        turn = next((t for t in journal.parse(text, path) if t.block_id == anchor[1:]), None)
        body = f"{turn.role} at {turn.at:%Y-%m-%d %H:%M}: {turn.text}" if turn else body
    cut = len(body) > BODY_CHARS
    return {"path": path + (f"#{anchor}" if anchor else ""), "depth": level,
            "description": str(note.get("description") or ""), "text": body[:BODY_CHARS] + ("…" if cut else ""),
            "truncated": cut}


def listing(memory: Memory, folder: str = "") -> dict:
    """A folder's notes (with their descriptions) and subfolders; hidden folders left out."""
    folder = folder.strip().strip("/")
    base = memory.path(folder) if folder else memory.root
    if folder and any(p.startswith(".") and p != ".skills" for p in folder.split("/")):
        raise UsageError(f"'{folder}' is hidden; notes live in the memory's visible folders")
    if not base.is_dir():
        raise UsageError(f"no folder '{folder}' in the memory")
    entries, folders = [], []
    for child in sorted(base.iterdir()):
        if child.name.startswith(".") and child.name != ".skills":
            continue
        relpath = posixpath.join(folder, child.name) if folder else child.name
        if child.is_dir():
            folders.append(relpath + "/")
        elif child.suffix == ".md":
            entries.append({"path": relpath,
                            "description": str(notes.peek(child, "description").get("description") or "")})
    return {"folder": folder or ".", "folders": folders, "notes": entries}


def _plain(meta) -> dict:
    import json

    return json.loads(json.dumps(dict(meta or {}), default=str))
