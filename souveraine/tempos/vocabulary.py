"""What the memory held before: the words of its journal and notes as they stood at the last witness.

The Flame names what was said for the first time, so reflect needs the words the memory
held when the previous witness was written: the journal up to that witness, and the
notes (every Markdown file outside the journal) in the commit that recorded it — not as
they stand now, since a note remembered during the conversation must not hide the name
it introduced. The answer is cached in .souveraine/vocabulary.json, keyed by that
witness; the next reflection extends it by one window and the notes changed since, and
a missing or stale cache is rebuilt from the journal and git alone.
"""

import json
import re

from souveraine.inference import extractive
from souveraine.store import journal
from souveraine.store.atomic import atomic_write
from souveraine.store.journal import Turn
from souveraine.store.memory import Memory

CACHE = "vocabulary.json"
VERSION = 1


def held_before(memory: Memory, witness: Turn | None) -> set[str]:
    """Casefolded words the memory held at ``witness`` (the last reflection; None: at its birth)."""
    if witness is None:
        root = _root_commit(memory)
        return _notes_words(memory, root) if root else set()
    key = _key(witness)
    cached = _load(memory)
    if cached and cached["witness"] == key:
        return set(cached["words"])
    commit = _commit_of(memory, witness)
    previous = _locate(memory, cached["witness"]) if cached else None
    if previous is not None and cached.get("commit") and commit:
        words = set(cached["words"]) | _journal_words(memory, previous, witness)
        words |= _changed_notes_words(memory, cached["commit"], commit)
    else:
        words = _journal_words(memory, None, witness) | (_notes_words(memory, commit) if commit else set())
    _save(memory, {"version": VERSION, "witness": key, "commit": commit, "words": sorted(words)})
    return words


def _key(turn: Turn) -> str:
    return f"{turn.path}#^{turn.block_id}"


def _load(memory: Memory) -> dict | None:
    try:
        data = json.loads((memory.cache / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("words"), list):
        return None
    return data


def _save(memory: Memory, data: dict) -> None:
    try:
        atomic_write(memory.cache / CACHE, json.dumps(data, ensure_ascii=False))
    except OSError:
        pass  # a cache that cannot be written is rebuilt next time


def _locate(memory: Memory, key: str) -> tuple[str, str] | None:
    """A cached witness (path, block id) if it is still in the journal."""
    path, _, block = key.partition("#^")
    full = memory.root / path
    if not full.is_file() or f"\n^{block}\n" not in full.read_text(encoding="utf-8") + "\n":
        return None
    return path, block


def _journal_words(memory: Memory, start: tuple[str, str] | None, end: Turn) -> set[str]:
    """Words of the journal after ``start`` (or from its beginning) through the witness ``end``."""
    first = journal.day_of(start[0]) if start else None
    found: set[str] = set()
    for relpath in journal.days(memory.root, since=first, until=end.day):
        text = (memory.root / relpath).read_text(encoding="utf-8")
        if start and relpath == start[0]:
            text = text[_after(text, start[1]):]
        if relpath == end.path:
            text = text[:_after(text, end.block_id)]
        found |= extractive.words(text)
    return found


def _after(text: str, block: str) -> int:
    match = re.search(r"^\^" + re.escape(block) + r"[ \t]*$", text, re.MULTILINE)
    return match.end() if match else len(text)


def _commit_of(memory: Memory, turn: Turn) -> str | None:
    """The commit that wrote the witness (HEAD when it is not committed yet).

    The witness is recent, so the newest commit that changed its block's count is looked
    for first, and taken when its parent did not hold the block yet: that stops the walk
    after a few commits instead of ten years of them. Otherwise the oldest of all is it."""
    mark = f"^{turn.block_id}"
    newest = memory.git("log", "-n", "1", "--format=%H %P", "-S", mark, "--", turn.path, check=False).stdout.split()
    if not newest:
        return _head(memory)
    parent = memory.git("show", f"{newest[1]}:{turn.path}", check=False) if len(newest) > 1 else None
    if parent is None or parent.returncode != 0 or not re.search(f"^{re.escape(mark)}[ \t]*$", parent.stdout, re.MULTILINE):
        return newest[0]
    done = memory.git("log", "--format=%H", "-S", mark, "--", turn.path, check=False)
    shas = done.stdout.split() if done.returncode == 0 else []
    return shas[-1] if shas else _head(memory)


def _head(memory: Memory) -> str | None:
    done = memory.git("rev-parse", "--verify", "-q", "HEAD", check=False)
    return done.stdout.strip() or None


def _root_commit(memory: Memory) -> str | None:
    done = memory.git("rev-list", "--max-parents=0", "HEAD", check=False)
    roots = done.stdout.split() if done.returncode == 0 else []
    return roots[-1] if roots else None


def _is_note(path: str) -> bool:
    return path.endswith(".md") and not path.startswith(f"{journal.ROOT}/")


def _notes_words(memory: Memory, commit: str) -> set[str]:
    listing = memory.git("ls-tree", "-r", "-z", "--name-only", commit).stdout.split("\0")
    return _words_at(memory, commit, [p for p in listing if _is_note(p)])


def _changed_notes_words(memory: Memory, old: str, new: str) -> set[str]:
    done = memory.git("diff", "--name-only", "-z", "--no-renames", "--diff-filter=AMT", old, new, check=False)
    if done.returncode != 0:
        return _notes_words(memory, new)
    return _words_at(memory, new, [p for p in done.stdout.split("\0") if _is_note(p)])


def _words_at(memory: Memory, commit: str, paths: list[str]) -> set[str]:
    """Words of ``paths`` as they are in ``commit``, read in one ``git cat-file --batch``."""
    if not paths:
        return set()
    request = "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8")
    out = memory.git("cat-file", "--batch", input=request, text=False).stdout
    found: set[str] = set()
    i = 0
    while i < len(out):
        end = out.index(b"\n", i)
        header = out[i:end].split()
        i = end + 1
        if len(header) < 3 or header[-1] == b"missing":
            continue
        size = int(header[2])
        found |= extractive.words(out[i:i + size].decode("utf-8", "replace"))
        i += size + 1
    return found
