"""`verify`: history replayed commit by commit, each judged against its parents by the same rules,
then every witness re-checked as it stands at HEAD (`--at REV`: only that, at REV).
What an earlier run judged is on record (laws/verified.py): a routine run judges only the
commits since, and re-checks the witness only when the witness's files moved.

Hooks can be skipped (`--no-verify`), so this is how a memory proves its history whole.
A few git processes serve a whole run of commits, so 10,000 commits take seconds; the
standing check costs one `git grep` and one read per witnessed memory, whatever the history.
"""

from collections.abc import Callable

from souveraine.laws import history, verified
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.store.memory import Memory


class Report:
    def __init__(self, commits: int, breaches: list[Breach], witnessed: int = 0, judged: int | None = None,
                 since: str | None = None):
        self.commits = commits                      # in the history verified
        self.breaches = breaches
        self.witnessed = witnessed
        self.judged = commits if judged is None else judged   # judged by this run; the rest were on record
        self.since = since                          # the recorded commit this run started from

    @property
    def ok(self) -> bool:
        return not self.breaches

    def to_dict(self) -> dict:
        return {"commits": self.commits, "judged": self.judged, "breaches": [b.to_dict() for b in self.breaches]}


def verify(memory: Memory, since: str | None = None,
           progress: Callable[[int, int], None] | None = None, full: bool = False) -> Report:
    """Every breach in the history of HEAD (after ``since`` when given), oldest first.

    Without ``since``, the commits already judged (laws/verified.py's record, unless ``full``)
    are not judged again: their breaches come from the record, and only the commits since
    are replayed. The record then moves to HEAD.
    """
    repo = Repo(memory.root)
    head = repo.run("rev-parse", "--verify", "-q", "HEAD", check=False)
    if head.returncode != 0:
        return Report(0, [])
    head = head.stdout.decode().strip()
    if since:
        commits, found = history.judge(repo, [f"{_commit(repo, since)}..{head}"], progress)
        standing = at(memory, head)
        return Report(commits, found + standing.breaches, standing.witnessed)
    record = None if full else verified.load(memory.root, repo, head)
    judged, found = (0, []) if record and record.commit == head else \
        history.judge(repo, [f"{record.commit}..{head}" if record else head], progress)
    if record is not None and (record.witness_at == head or not _witness_moved(repo, record.witness_at, head)):
        standing = Report(0, record.standing, record.witnessed)
    else:
        standing = at(memory, head)
    past = record.breaches if record else []
    total = judged + (record.commits if record else 0)
    if record is None or judged or record.witness_at != head:
        verified.save(memory.root, verified.Record(head, total, past + found, standing.breaches, standing.witnessed))
    return Report(total, past + found + standing.breaches, standing.witnessed, judged, record.commit if record else None)


def _witness_moved(repo: Repo, old: str, new: str) -> bool:
    """Whether the witness's standing may differ between two commits: a covenant, an identity or
    effective.md changed, or a memory that was there changed or went (a new memory was judged
    whole when it came), or a new one is elevated."""
    from souveraine.laws import witness
    from souveraine.laws.snapshot import parse_raw

    raw = repo.out("diff-tree", "-r", "-z", "--no-renames", "--raw", old, new, "--",
                   witness.FOLDER, witness.COVENANTS, witness.IDENTITIES, witness.EFFECTIVE)
    added = []
    for entry in parse_raw(raw):
        if not entry.path.startswith(witness.FOLDER) or entry.status != "A":
            return True
        added.append(entry.new)
    texts = repo.read(added)
    return any(data and (b"foundational" in data or b"constitutive" in data) for data in texts.values())


def at(memory: Memory, rev: str = "HEAD", progress: Callable[[int, int], None] | None = None) -> Report:
    """Every witness as it stands at ``rev``: covenants, identities, the self-witness wall,
    each witnessed memory's signatures, effective.md. No private key is needed."""
    from souveraine.laws import witness

    repo = Repo(memory.root)
    if repo.run("rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0:
        return Report(0, [])
    commit = _commit(repo, rev)
    with repo.kept_open():
        witnessed, found = witness.standing(repo, commit, progress)
    for breach in found:
        breach.commit = commit
    return Report(0, found, witnessed)


def _commit(repo: Repo, rev: str) -> str:
    from souveraine.errors import UsageError

    done = repo.run("rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
    if done.returncode != 0:
        raise UsageError(f"'{rev}' is not a commit of this memory; give a commit id, a tag or e.g. HEAD~10")
    return done.stdout.decode().strip()
