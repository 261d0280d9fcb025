"""What the laws judge: one tree (the staged index, or a commit) and how it differs from each parent.

The differences come from git's raw diff (`--no-renames`: a rename is a deletion plus
an addition, so blob ids can be compared), one `git diff-index` for the index and one
`git diff-tree --stdin` for a whole run of commits.
"""

from pathlib import Path

from souveraine.laws.repo import Repo
from souveraine.store import git

_GITLINK = "160000"  # a submodule: no blob to read


class Entry:
    """One changed path against one parent: status A, M, D or T and the blob ids."""

    __slots__ = ("path", "status", "old", "new")

    def __init__(self, path: str, status: str, old: str | None, new: str | None):
        self.path, self.status, self.old, self.new = path, status, old, new

    def __repr__(self) -> str:
        return f"Entry({self.path!r}, {self.status}, {self.old}, {self.new})"


class Snapshot:
    """A tree to judge. ``diffs[i]`` is its difference from ``parents[i]`` (from nothing for a root)."""

    def __init__(self, repo: Repo, commit: str | None, parents: list[str], diffs: list[list[Entry]],
                 message: str | None = None):
        self.repo = repo
        self.commit = commit
        self.parents = parents
        self.diffs = diffs
        self.message = message
        self._base: str | None | bool = False
        self.merging = False  # a merge whose other parents git does not name yet (pre-merge-commit)

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1 or self.merging

    def name(self, relpath: str) -> str:
        """The object name of ``relpath`` in this tree, for `git cat-file`."""
        return f"{self.commit}:{relpath}" if self.commit else f":{relpath}"

    def read(self, relpath: str) -> str | None:
        """Another file of the same tree, as text; None when it is not there."""
        data = self.repo.blob(self.name(relpath))
        return None if data is None else data.decode("utf-8", errors="replace")

    @property
    def base(self) -> str | None:
        """The merge base of a merge's parents (None for a commit with one parent or none)."""
        if self._base is False:
            self._base = None
            if self.is_merge:
                done = self.repo.run("merge-base", "--octopus", *self.parents, check=False)
                self._base = done.stdout.decode().strip() or None
        return self._base

    def introduced(self) -> list[tuple[str, str, list[str]]]:
        """(path, new blob, the parents' blobs) for each file whose content is new in this tree.

        For a merge, only what differs from every parent: the rest was judged in its own commit.
        """
        if not self.diffs:
            return []
        changed = [{e.path: e for e in diff} for diff in self.diffs]
        out = []
        for path, entry in changed[0].items():
            if entry.new is None:
                continue
            others = [c.get(path) for c in changed[1:]]
            if all(o is not None and o.new is not None for o in others):
                olds = [e.old for e in (entry, *others) if e.old]
                out.append((path, entry.new, olds))
        return out


def parse_raw(raw: str) -> list[Entry]:
    """Entries from `--raw -z --no-renames` output."""
    parts = raw.split("\0")
    entries = []
    for meta, path in zip(parts[0::2], parts[1::2]):
        entry = _entry(meta, path)
        if entry is not None:
            entries.append(entry)
    return entries


def _entry(meta: str, path: str) -> Entry | None:
    fields = meta.lstrip(":").split(" ")
    if len(fields) < 5 or _GITLINK in (fields[0], fields[1]):
        return None
    old = None if not fields[2].strip("0") else fields[2]
    new = None if not fields[3].strip("0") else fields[3]
    return Entry(path, fields[4][0], old, new)


# -- the staged index ----------------------------------------------------------------------


def staged(repo: Repo, amend: bool = False, merging: bool = False) -> Snapshot:
    """The index about to be committed, against HEAD (and MERGE_HEAD during a merge).

    ``amend``: against HEAD's own parents, as `git commit --amend` would replace HEAD.
    ``merging``: git is committing a merge but has not written MERGE_HEAD yet (the
    pre-merge-commit hook): append-only files are judged as merged, against HEAD alone.
    Git does not tell a pre-commit hook that it amends; laws/amend.py settles it once the
    commit exists, by its real parent.
    """
    gitdir, head, head_parents = (None if amend else _loose(repo)) or _head(repo)
    if amend:
        parents = head_parents
    else:
        parents = [head, *_merge_heads(gitdir)] if head else []
    if not parents:
        empty = repo.out("hash-object", "-t", "tree", "--stdin", input=b"").strip()
        return Snapshot(repo, None, [], [_diff_index(repo, empty)])
    snapshot = Snapshot(repo, None, parents, [_diff_index(repo, p) for p in parents])
    snapshot.merging = merging
    return snapshot


def _head(repo: Repo) -> tuple[str, str | None, list[str]]:
    done = repo.run("rev-parse", "--absolute-git-dir", "HEAD", "HEAD^@", check=False)
    if done.returncode != 0:  # an unborn branch: the first commit
        return repo.out("rev-parse", "--absolute-git-dir").strip(), None, []
    lines = done.stdout.decode().split()
    return lines[0], lines[1], lines[2:]


def _loose(repo: Repo) -> tuple[str, str, list[str]] | None:
    """The git folder and HEAD read from the files, without a process, where that is plain: a
    `.git` folder and HEAD a loose ref (store.git), in the tool's own environment. HEAD's
    parents are not read: only an amend needs them."""
    if repo.inherit or repo.env:
        return None
    dot = repo.root / ".git"
    head = git._loose_head(repo.root) if dot.is_dir() and not dot.is_symlink() else None
    return (str(dot.resolve()), head, []) if head else None


def _merge_heads(gitdir: str) -> list[str]:
    try:
        return Path(gitdir, "MERGE_HEAD").read_text().split()
    except OSError:
        return []


def _diff_index(repo: Repo, tree: str) -> list[Entry]:
    known = None if repo.inherit or repo.env else git.staged_raw(repo.root, tree)   # the tool's commit read it
    if known is not None:
        return parse_raw(known.decode("utf-8", errors="surrogateescape"))
    return parse_raw(repo.out("diff-index", "--cached", "--raw", "-z", "--no-renames", tree, "--"))


# -- commits -------------------------------------------------------------------------------


def commits(repo: Repo, revs: list[str], chunk: int = 400):
    """Snapshots of the commits ``revs`` select (`git log` arguments), oldest first, in chunks.

    Yields lists of snapshots, so a caller can read each chunk's blobs in one batch; each
    chunk reads through a sibling of ``repo`` with a cache of its own, dropped with the chunk.
    One `git log --raw` streams every commit with its changes; a merge's changes against
    each parent come from one `git diff-tree --stdin` for the chunk's merges.
    """
    pending: list[tuple[str, list[str], str, list[Entry]]] = []
    for record in _log(repo, revs):
        pending.append(record)
        if len(pending) == chunk:
            yield _snapshots(repo.sibling(), pending)
            pending = []
    if pending:
        yield _snapshots(repo.sibling(), pending)


def _log(repo: Repo, revs: list[str]):
    """(commit, parents, message, entries against its parent) per commit, oldest first, as git
    writes them: `-z` tokens, a commit's head and message, then its raw entries in pairs."""
    args = ("log", "-z", "--reverse", "--format=%H %P%n%B", "--raw", "-r", "--root", "--no-renames", "--no-abbrev",
            *revs, "--")
    current, meta, rest = None, None, b""
    for data in repo.stream(*args):
        data = rest + data if rest else data
        cut = data.rfind(b"\0") + 1
        rest = data[cut:]
        tokens = data[:cut - 1].decode("utf-8", errors="surrogateescape").split("\0") if cut else ()
        for token in tokens:      # decoded a block at a time: UTF-8 never holds a NUL inside a character
            if meta is not None:
                entry = _entry(meta, token)
                if entry is not None:
                    current[3].append(entry)
                meta = None
            elif token.startswith((":", "\n:")):
                meta = token.lstrip("\n")
            elif token:
                if current is not None:
                    yield current
                first, _, message = token.partition("\n")
                commit, *parents = first.split()
                current = (commit, parents, message, [])
    if rest:
        raise ValueError("git log's output ended inside a record")
    if current is not None:
        yield current


def _snapshots(repo: Repo, records: list[tuple[str, list[str], str, list[Entry]]]) -> list[Snapshot]:
    merges = [f"{c} {p}" for c, parents, _, _ in records if len(parents) > 1 for p in parents]
    diffs: dict[tuple[str, str], list[Entry]] = {}
    if merges:   # git log shows no changes for a merge: each parent's, from diff-tree
        raw = repo.out("diff-tree", "--stdin", "--always", "-r", "--raw", "-z", "--no-renames",
                       input=("\n".join(merges) + "\n").encode())
        for line, block in zip(merges, _blocks(raw)):
            commit, _, parent = line.partition(" ")
            diffs[(commit, parent)] = block
    out = []
    for commit, parents, message, entries in records:
        found = [diffs[(commit, p)] for p in parents] if len(parents) > 1 else [entries]
        out.append(Snapshot(repo, commit, parents, found, message))
    return out


def _blocks(raw: str) -> list[list[Entry]]:
    """Split diff-tree --stdin output into one entry list per input line (each opens with its commit id)."""
    parts = raw.split("\0")
    blocks: list[list[Entry]] = []
    i = 0
    while i < len(parts):
        token = parts[i]
        if not token:
            i += 1
        elif token.startswith(":"):
            entry = _entry(token, parts[i + 1])
            if entry is not None:
                blocks[-1].append(entry)
            i += 2
        else:
            blocks.append([])
            i += 1
    return blocks
