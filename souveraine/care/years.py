"""Memories into their year folders: memories/<name>.md, where versions before year folders
wrote them, moved to memories/<year>/<name>.md (``store.layout``'s rule), and the links to
them pointed there.

``doctor`` lists what is left; ``doctor --fix`` does it. The memories move, oldest first, in
``refactor(memory)`` commits of pure renames, at most ``BATCH`` memories each (a kill undoes
the batch under way, from its change's record, and the next run resumes with the next
memory left); the attestations sign a memory's id, tier and hash, not its path, so every
witness holds. Then one ``fix(memory)`` commit rewrites the links that still name a memory's
old place — in identities' ``shaped_by`` and every note a tool may rewrite — and regenerates
effective.md. A memory's own text is hashed, and an append-only note keeps its past: both
keep the links they were written with, and every reader still finds the memory from them.
"""

import os
from typing import Callable

from souveraine.errors import UsageError
from souveraine.store import layout
from souveraine.store.memory import Memory

BATCH = 1000            # memories a refactor commit moves: a short command line, a small undo
_FLAT = f":(glob){layout.MEMORIES}/*.md"


def flat(memory: Memory) -> list[str]:
    """Every tracked memory in memories/ itself that belongs in a year folder."""
    listed = memory.git("ls-files", "-z", "--", _FLAT, check=False).stdout.split("\0")
    return [p for p in listed if p and layout.is_flat(p)]


def pending(memory: Memory, listed: list[str] | None = None) -> list[tuple[str, str]]:
    """(from, to) for each memory of ``flat`` (or ``listed``) that can move now: unchanged since
    its commit, with nothing at its new place; oldest first."""
    listed = flat(memory) if listed is None else listed
    if not listed:
        return []
    edited = set(memory.git("diff", "--name-only", "-z", "HEAD", "--", _FLAT, check=False).stdout.split("\0"))
    moves = [(p, layout.memory_path(layout.memory_name(p))) for p in listed if p not in edited]
    return sorted((old, new) for old, new in moves if not os.path.lexists(memory.path(new)))


def stale_links(memory: Memory) -> dict[str, int]:
    """Notes a tool may rewrite, each with how many of its links name a memory's old place."""
    return _counted(memory, frozen=False)


def frozen_links(memory: Memory) -> dict[str, int]:
    """Append-only notes, each with how many of its links name a memory's old place."""
    return _counted(memory, frozen=True)


def _counted(memory: Memory, frozen: bool) -> dict[str, int]:
    found = {}
    for path, text in _linking(memory, frozen):
        count = sum(1 for link in _links(text) if moved(memory, link))
        if count:
            found[path] = count
    return found


def migrate(memory: Memory, progress: Callable[[int, int], None] | None = None) -> dict:
    """Move every memory left into its year folder, then point the links at them: the
    ``refactor`` commits, then the ``fix`` commit (none when nothing is left to do)."""
    with memory.lock():
        moves = pending(memory)
        commits = []
        for n, batch in enumerate(_batches(moves)):
            commits.append(_move(memory, batch))
            if progress:
                progress(min((n + 1) * BATCH, len(moves)), len(moves))
        relinked, fix = _relink(memory)
    return {"moved": len(moves), "commits": [c for c in commits if c], "links": relinked, "fix_commit": fix}


def _batches(moves: list[tuple[str, str]]):
    """The moves, oldest first, BATCH at a time: one commit for most memories, a few dozen at ten years."""
    parts = [moves[i:i + BATCH] for i in range(0, len(moves), BATCH)]
    for n, part in enumerate(parts, 1):
        yield part, (n, len(parts))


def _move(memory: Memory, batch) -> str | None:
    items, (n, of) = batch
    years = sorted({new.split("/")[1] for _, new in items})
    count = f"{len(items):,} {'memory' if len(items) == 1 else 'memories'}"
    where = (f"of {years[0]} into {layout.MEMORIES}/{years[0]}/" if len(years) == 1
             else f"of {years[0]}–{years[-1]} into their year folders")
    message = f"refactor(memory): move {count} {where}" + (f" ({n} of {of})" if of > 1 else "")
    with memory.change(message) as change:
        for year in years:
            memory.path(f"{layout.MEMORIES}/{year}").mkdir(exist_ok=True)
        for old, new in items:
            change.touched(old)       # recorded before it moves, so a kill puts it back
            change.touched(new)
            os.rename(memory.path(old), memory.path(new))
    return change.sha


def _relink(memory: Memory) -> tuple[int, str | None]:
    """Rewrite each link to a memory's old place in the notes a tool may rewrite; one commit."""
    from souveraine.care import links
    from souveraine.identity import compose, identities

    rewritten: dict[str, str] = {}
    count = 0
    for path, text in _linking(memory, frozen=False):
        if path == compose.EFFECTIVE:
            continue   # generated: composed again below

        def pointed(link, path=path):
            nonlocal count
            target = moved(memory, link)
            if target is None:
                return None
            count += 1
            return links.retarget(link, target, path)

        new = links.rewrite(text, pointed)
        if new != text:
            rewritten[path] = new
    if not rewritten:
        return 0, None
    shaping = any(p.startswith(identities.FOLDER + "/") for p in rewritten)
    with memory.change(f"fix(memory): point {count:,} link{'s' if count != 1 else ''} at memories' year folders") as change:
        for path, text in sorted(rewritten.items()):
            change.write(path, text)
        if shaping:
            change.write(compose.EFFECTIVE, compose.render(memory))
    return count, change.sha


def _linking(memory: Memory, frozen: bool):
    """(path, text) of each tracked note outside memories/ and journal/ that mentions memories/,
    append-only (``frozen``) or not."""
    done = memory.git("grep", "-l", "-z", "-F", f"{layout.MEMORIES}/", "--", "*.md",
                      f":(exclude){layout.MEMORIES}/", ":(exclude)journal/", check=False)
    for path in sorted(p for p in done.stdout.split("\0") if p):
        if memory.append_only(path) != frozen:
            continue
        try:
            yield path, memory.read_text(path)
        except (OSError, UnicodeDecodeError):
            continue


def _links(text: str):
    from souveraine.care import links

    return links.find(text)


def moved(memory: Memory, link) -> str | None:
    """Where the memory a link names by its old place is now; None for any other link."""
    target = link.target.strip().lstrip("/")
    relpath = target if target.endswith(".md") else target + ".md"
    try:
        if not layout.is_memory(relpath) or memory.exists(relpath):
            return None
        return layout.located(relpath, memory.exists)
    except UsageError:    # a path that leads out of the memory: not a memory's
        return None
