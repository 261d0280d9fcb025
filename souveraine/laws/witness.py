"""The witness's laws: identity/integrity's rules over a git snapshot (the index, or a commit).

``breaches`` judges one memory a snapshot introduces (rules.judge calls it per file);
``changes`` judges what a commit does to the witness's files as a whole — deleted memories,
covenants, identities, the self-witness wall, effective.md — and re-checks the witnessed
memories a covenant or identity change concerns; ``standing`` is ``verify --at REV``: every
witness as it stands at REV, from git alone (no key is needed to check a signature).
"""

from souveraine.laws.breach import Breach

FOLDER = "memories/"
COVENANTS, IDENTITIES = "covenants/", "identities/"
EFFECTIVE = "system/persona/effective.md"
_ELEVATED_BYTES = (b"foundational", b"constitutive")
_ATTESTATIONS = b"## Attestations"   # identity.memories.ATTESTATIONS, not imported on this path


class Tree:
    """One snapshot as the identity rules read it: files by path, folders by listing."""

    def __init__(self, repo, commit: str | None):
        self.repo, self.commit = repo, commit
        self._names: dict[str, list[str]] = {}
        self._project: str | None = None

    def name(self, relpath: str) -> str:
        return f"{self.commit}:{relpath}" if self.commit else f":{relpath}"

    def read(self, relpath: str) -> str | None:
        data = self.repo.blob(self.name(relpath))
        return None if data is None else data.decode("utf-8", errors="replace")

    def prefetch(self, paths: list[str]) -> None:
        if paths:
            self.repo.read([self.name(p) for p in paths])

    def names(self, folder: str) -> list[str]:
        if folder not in self._names:
            args = ("ls-tree", "-r", "-z", "--name-only", self.commit) if self.commit else ("ls-files", "-z", "--cached")
            listed = self.repo.out(*args, "--", folder).split("\0")
            self._names[folder] = [p for p in listed if p]
            self.prefetch(self._names[folder])
        return self._names[folder]

    def witnessed(self, kept: bool = False) -> list[str]:
        """Every memory that may be elevated or witnessed: a superset, found by `git grep` in C;
        ``kept`` (the standing check of a commit): moved on from the last search by the change
        instead (laws/candidates.py). A replay's commits search afresh, leaving that list be."""
        from souveraine.laws import candidates

        if self.commit:
            return candidates.at(self.repo, self.commit) if kept else candidates.grep(self.repo, self.commit)
        done = self.repo.run("grep", "-l", "-z", "-F", "-e", "foundational", "-e", "constitutive", "--cached",
                             "--", FOLDER + "*.md", check=False)
        return [p for p in done.stdout.decode().split("\0") if p and p.startswith(FOLDER)]

    @property
    def project_id(self) -> str:
        if self._project is None:
            from souveraine.identity import integrity

            self._project = integrity._project_id(self.read)
        return self._project


def applies(path: str) -> bool:
    return path.startswith(FOLDER) and path.endswith(".md")


def watches(path: str) -> bool:
    """Whether ``changes`` reads this file's old and new text whole."""
    return path.startswith((FOLDER, COVENANTS, IDENTITIES)) or path == EFFECTIVE


def breaches(path: str, data: bytes, snapshot, before: list[bytes] = ()) -> list[Breach]:
    """One memory the snapshot introduces, against its parents' versions."""
    if not before and plainly_episodic(data):
        return []
    from souveraine.identity import integrity

    olds = [b.decode("utf-8", errors="replace") for b in before]
    tree = Tree(snapshot.repo, snapshot.commit)
    text = data.decode("utf-8", errors="replace")
    return [_breach(path, "witness", p) for p in integrity.check(path, text, tree.read, olds, tree)]


def plainly_episodic(data: bytes) -> bool:
    """Whether a new memory is one integrity.check has nothing to say of, seen without parsing
    it (nine in ten of those a replay meets): simple flat properties (laws/frontmatter.py), so
    no YAML tag; its tier absent or `episodic`; no attesters, no elevation, no attestations."""
    from souveraine.laws import frontmatter

    fm = frontmatter.block(data)
    return (fm is not None and frontmatter.simple(fm)
            and (b"\ntier:" not in fm or b"\ntier: episodic\n" in fm)
            and b"\nattesters:" not in fm and b"\nelevated:" not in fm
            and b"\n" + _ATTESTATIONS not in data)


def changes(snapshot, judged: set[str] = frozenset()) -> list[Breach]:
    """What the snapshot does to the witness's files beyond each memory alone (``judged``: the
    memories ``breaches`` already saw)."""
    entries = _changed(snapshot)
    if not entries:
        return []
    from souveraine.identity import integrity

    tree = Tree(snapshot.repo, snapshot.commit)
    found = snapshot.repo.read([oid for e in entries for oid in (e.old, e.new) if oid])
    text = lambda oid: None if oid is None else (found[oid] or b"").decode("utf-8", errors="replace")
    out, shaping, recheck = [], False, set()
    moved_to = {e.new for e in entries if e.new and applies(e.path)}   # a memory moved keeps its blob
    for entry in entries:
        if entry.path.startswith(FOLDER):     # read as bytes: nine in ten commits touch only memories
            if entry.new is None and entry.old is not None and entry.old not in moved_to:
                out += [_breach(entry.path, "paid_receipt", p) for p in integrity.deleted(entry.path, text(entry.old))]
            shaping = shaping or any(_shapes(found[o]) for o in (entry.new, entry.old) if o and found[o])
            continue
        new, old = text(entry.new), text(entry.old)
        if entry.path.startswith(COVENANTS) and entry.path.endswith(".md"):
            out += [_breach(entry.path, "covenant", p) for p in integrity.covenant(entry.path, new, old, tree)]
            recheck.update(tree.witnessed())
        elif entry.path.startswith(IDENTITIES) and entry.path.endswith(".md"):
            out += [_breach(entry.path, "identity", p) for p in integrity.identity(entry.path, new, old, tree)]
            recheck.update(_shaped_by(new))
            shaping = True
        elif entry.path == EFFECTIVE:
            shaping = True
    if any(e.path.startswith((COVENANTS, IDENTITIES)) for e in entries):
        out += [_breach("", "self_witness", p) for p in integrity.wall(tree)]
    out += _memories(tree, sorted(recheck - set(judged)))
    if shaping:
        out += [_breach(EFFECTIVE, "effective", p) for p in integrity.effective(tree)]
    return out


def standing(repo, commit: str, progress=None) -> tuple[int, list[Breach]]:
    """(witnessed memories checked, breaches): every witness as it stands at ``commit``."""
    from souveraine.identity import integrity

    tree = Tree(repo, commit)
    out = []
    for relpath in sorted(tree.names(COVENANTS)):
        if relpath.endswith(".md"):
            out += [_breach(relpath, "covenant", p) for p in integrity.covenant(relpath, tree.read(relpath), None, tree)]
    for relpath in sorted(tree.names(IDENTITIES)):
        if relpath.endswith(".md"):
            out += [_breach(relpath, "identity", p) for p in integrity.identity(relpath, tree.read(relpath), None, tree)]
    out += [_breach("", "self_witness", p) for p in integrity.wall(tree)]
    candidates = tree.witnessed(kept=True)
    out += _memories(tree, candidates, progress)
    out += [_breach(EFFECTIVE, "effective", p) for p in integrity.effective(tree)]
    return len(candidates), out


def _memories(tree: Tree, paths: list[str], progress=None) -> list[Breach]:
    from souveraine.identity import integrity

    tree.prefetch(paths)
    out = []
    for n, relpath in enumerate(paths, 1):
        text = tree.read(relpath)
        if text is not None:
            out += [_breach(relpath, "witness", p) for p in integrity.check(relpath, text, tree.read, (), tree)]
        if progress and n % 50 == 0:
            progress(n, len(paths))
    return out


def _changed(snapshot) -> list:
    """The snapshot's entries under the witness's folders that differ from every parent."""
    if not snapshot.diffs:
        return []
    mine = [e for e in snapshot.diffs[0] if watches(e.path)]
    if not snapshot.is_merge:
        return mine
    others = [{e.path for e in diff} for diff in snapshot.diffs[1:]]
    return [e for e in mine if all(e.path in o for o in others)]


def _shapes(data: bytes) -> bool:
    """Whether a memory's text may take part in an identity's composition (a cheap superset)."""
    return b"identity_id:" in data and any(t in data for t in _ELEVATED_BYTES) and b"identity_id: ''" not in data \
        and b'identity_id: ""' not in data


def _shaped_by(text: str | None) -> list[str]:
    if not text:
        return []
    from souveraine.errors import NoteError
    from souveraine.identity.memories import unlink_path
    from souveraine.store import notes

    from souveraine.store.layout import memory_places

    try:
        return [p for w in notes.parse(text).get("shaped_by") or [] for p in memory_places(unlink_path(w))]
    except NoteError:
        return []


def _breach(path: str, rule: str, problem: str) -> Breach:
    return Breach(path, rule, problem if not path or problem.startswith(path) else f"{path}: {problem}")
