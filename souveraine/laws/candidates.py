"""The memories a commit may hold witnessed: found once by `git grep`, then kept by the change.

A candidate is a Markdown file under memories/ whose text holds `foundational` or
`constitutive` (a superset of the elevated and witnessed ones, which the witness's rules
then read). The list is a function of the memories/ tree alone, so
`.souveraine/witnessed.json` (a cache: git ignores it) keeps it beside that tree's id. At
another tree, only the memories that differ (one `git diff-tree`) are read and searched
again: a routine `verify --at HEAD` costs in proportion to what changed since the last one,
not to the tens of thousands of memories a decade writes.
"""

import json
import os
from pathlib import Path

FOLDER = "memories/"
WORDS = (b"foundational", b"constitutive")
FILE = "witnessed.json"
VERSION = 1
LIMIT = 2000    # memories to read one by one; beyond, one `git grep` of them all is cheaper


def at(repo, commit: str) -> list[str]:
    """The candidates in ``commit``, sorted as `git grep` lists them."""
    tree = repo.run("rev-parse", "--verify", "-q", f"{commit}:{FOLDER.rstrip('/')}", check=False).stdout.decode().strip()
    if not tree:
        return []
    kept = _load(repo.root)
    if kept is not None and kept[0] == tree:
        return kept[1]
    found = _since(repo, kept, tree) if kept is not None else None
    if found is None:
        found = grep(repo, commit)
    _save(repo.root, tree, found)
    return found


def grep(repo, commit: str) -> list[str]:
    """Every candidate, searched by git in C."""
    done = repo.run("grep", "-l", "-z", "-F", *(a for w in WORDS for a in ("-e", w.decode())), commit, "--",
                    FOLDER + "*.md", check=False)
    found = [p.split(":", 1)[1] for p in done.stdout.decode().split("\0") if p]
    return [p for p in found if p.startswith(FOLDER)]


def _since(repo, kept: tuple[str, list[str]], tree: str) -> list[str] | None:
    """The kept list moved to ``tree``: the memories that differ, read and searched again."""
    done = repo.run("diff-tree", "-r", "-z", "--no-renames", "--name-status", kept[0], tree, check=False)
    if done.returncode != 0:        # the kept tree is gone (a gc after a rewrite): search it all
        return None
    parts = [p for p in done.stdout.decode("utf-8", errors="surrogateescape").split("\0") if p]
    changed = {FOLDER + path: status for status, path in zip(parts[0::2], parts[1::2])}
    found = [p for p in kept[1] if p not in changed]
    read = [p for p, status in changed.items() if status != "D" and p.endswith(".md")]
    if len(read) > LIMIT:
        return None
    names = {p: f"{tree}:{p[len(FOLDER):]}" for p in read}
    texts = repo.read(list(names.values()))
    found += [p for p in read if any(w in (texts[names[p]] or b"") for w in WORDS)]
    return sorted(found)


def _path(root: Path) -> Path | None:
    """None inside a bare remote, or where the cache folder is a link leading out of the memory."""
    from souveraine.errors import ConfigError
    from souveraine.store.memory import Memory

    if not (Path(root) / ".git").exists():
        return None
    try:
        return Memory(root).cache / FILE
    except ConfigError:
        return None


def _load(root: Path) -> tuple[str, list[str]] | None:
    path = _path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path else None
        if data and data.get("version") == VERSION and isinstance(data.get("candidates"), list):
            return str(data["tree"]), [str(p) for p in data["candidates"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def _save(root: Path, tree: str, found: list[str]) -> None:
    """Written whole (temp file and rename); a cache, so not fsynced."""
    path = _path(root)
    if path is None:
        return
    try:
        path.parent.mkdir(exist_ok=True)
        temp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
        temp.write_text(json.dumps({"version": VERSION, "tree": tree, "candidates": found}) + "\n", encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        pass   # a read-only or full disk: the next check searches again, nothing is wrong
