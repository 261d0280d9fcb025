"""A commit's tree made from its parent's and the staged changes, without writing the index.

`git write-tree` makes the tree from the index, and then writes the whole index again to keep
its cache of the trees it made: at ten years of memory (34,000 entries, a 4.7 MB index) that
second write, hashed with git's collision-detecting SHA-1, was most of a persist's git CPU
(180 M instructions of its 370 M). A persist changes a few files, so its tree is its parent's
with a few folders made again: those folders are read from the parent (`git cat-file --batch`),
the changes applied, each new tree's id computed here, and the trees written by one
`git mktree --batch`, which must give the same ids. The index keeps its cache of trees marked
out of date for those folders, as `git update-index` left it; git makes them again when it
next needs them. Anything unexpected — a name with a newline, a tree or mode git writes
otherwise, a failure — gives None, and the caller runs `write-tree` as before.
"""

from pathlib import Path

_TREE = b"40000"


def of_change(root: Path, parent: str, raw: bytes, env: dict[str, str]) -> str | None:
    """The id of ``parent``'s tree with the changes ``raw`` (`git diff-index --cached --raw -z
    --no-renames parent`) made to it, written to the repository; None to leave it to write-tree."""
    from souveraine.errors import GitError
    from souveraine.store import git

    changes = _changes(raw)
    if not changes or any(b"\n" in path for path in changes):
        return None
    folders = _folders(changes)
    try:
        trees = _read(root, parent, folders, env)
        made, batch = _made(trees, changes, folders, len(parent))
        if made.get(b"") is None:
            return None
        written = git.run(root, "mktree", "-z", "--batch", input=b"".join(batch), env=env, text=False).stdout.split()
    except (GitError, ValueError, KeyError):
        return None
    if written != [oid for oid in made.values() if oid is not None]:
        return None
    return made[b""].decode()


def _changes(raw: bytes) -> dict[bytes, tuple[bytes, bytes] | None]:
    """Each changed path: its new (mode, id), or None where it is deleted."""
    fields = raw.split(b"\0")
    changes = {}
    for meta, path in zip(fields[0::2], fields[1::2]):
        if not meta:
            continue
        _, mode, _, oid, status = meta[1:].split(b" ")
        changes[path] = None if status.startswith(b"D") else (mode, oid)
    return changes


def _folders(changes) -> list[bytes]:
    """Every folder above a changed path, the root (b"") included, deepest first."""
    found = {b""}
    for path in changes:
        while b"/" in path:
            path = path.rpartition(b"/")[0]
            found.add(path)
    return sorted(found, key=lambda folder: (-(folder.count(b"/") + 1) if folder else 0, folder))


def _read(root: Path, parent: str, folders: list[bytes], env) -> dict[bytes, dict[bytes, tuple[bytes, bytes]]]:
    """The parent's entries in each folder, name → (mode, id); none where it has no such folder."""
    from souveraine.store import git

    asked = b"".join(parent.encode() + (b":" + folder if folder else b"^{tree}") + b"\n" for folder in folders)
    out = git.run(root, "cat-file", "--batch", input=asked, env=env, text=False).stdout
    trees, at = {}, 0
    for folder in folders:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        if header[-1] == b"missing":
            trees[folder], at = {}, end + 1
            continue
        oid, kind, size = header
        body = out[end + 1:end + 1 + int(size)]
        at = end + 1 + int(size) + 1
        trees[folder] = _entries(body, len(oid) // 2) if kind == b"tree" else {}
    return trees


def _entries(body: bytes, width: int) -> dict[bytes, tuple[bytes, bytes]]:
    entries, at = {}, 0
    while at < len(body):
        space = body.index(b" ", at)
        nul = body.index(b"\0", space)
        entries[body[space + 1:nul]] = (body[at:space], body[nul + 1:nul + 1 + width].hex().encode())
        at = nul + 1 + width
    return entries


def _made(trees, changes, folders: list[bytes], width: int) -> tuple[dict[bytes, bytes | None], list[bytes]]:
    """Each folder's new tree id (None: it is now empty, and goes), and the input `mktree` writes them from."""
    from souveraine.store import hashing as hashes

    for path, new in changes.items():
        folder, _, name = path.rpartition(b"/")
        if new is None:
            trees[folder].pop(name, None)
        else:
            trees[folder][name] = new
    hashing = hashes.sha1 if width == 40 else hashes.sha256
    made, batch = {}, []
    for folder in folders:
        entries = trees[folder]
        oid = None
        if entries:
            ordered = sorted(entries.items(), key=lambda e: e[0] + b"/" if e[1][0] == _TREE else e[0])
            body = b"".join(mode + b" " + name + b"\0" + bytes.fromhex(entry.decode()) for name, (mode, entry) in ordered)
            oid = hashing(b"tree %d\0" % len(body) + body).hexdigest().encode()
            batch.append(b"".join(_line(name, mode, entry) for name, (mode, entry) in ordered) + b"\0")
        made[folder] = oid
        if folder:
            above, _, name = folder.rpartition(b"/")
            if oid is None:
                trees[above].pop(name, None)
            else:
                trees[above][name] = (_TREE, oid)
    return made, batch


def _line(name: bytes, mode: bytes, oid: bytes) -> bytes:
    """One entry as `mktree -z` reads it (as `ls-tree -z` writes it)."""
    kind = b"tree" if mode == _TREE else (b"commit" if mode == b"160000" else b"blob")
    return mode.rjust(6, b"0") + b" " + kind + b" " + oid + b"\t" + name + b"\0"
