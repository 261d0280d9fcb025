"""`verify`: history replayed commit by commit, each judged against its parents by the same rules,
then every witness re-checked as it stands at HEAD (`--at REV`: only that, at REV).

Hooks can be skipped (`--no-verify`), so this is how a memory proves its history whole.
A few git processes serve a whole run of commits, so 10,000 commits take seconds; the
standing check costs one `git grep` and one read per witnessed memory, whatever the history.
"""

from collections.abc import Callable

from souveraine.laws import history
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.store.memory import Memory


class Report:
    def __init__(self, commits: int, breaches: list[Breach], witnessed: int = 0):
        self.commits = commits
        self.breaches = breaches
        self.witnessed = witnessed

    @property
    def ok(self) -> bool:
        return not self.breaches

    def to_dict(self) -> dict:
        return {"commits": self.commits, "breaches": [b.to_dict() for b in self.breaches]}


def verify(memory: Memory, since: str | None = None,
           progress: Callable[[int, int], None] | None = None) -> Report:
    """Every breach in the history of HEAD (after ``since`` when given), oldest first."""
    repo = Repo(memory.root)
    if repo.run("rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0:
        return Report(0, [])
    revs = [f"{_commit(repo, since)}..HEAD"] if since else ["HEAD"]
    commits, found = history.judge(repo, revs, progress)
    standing = at(memory, "HEAD")
    return Report(commits, found + standing.breaches, standing.witnessed)


def at(memory: Memory, rev: str = "HEAD", progress: Callable[[int, int], None] | None = None) -> Report:
    """Every witness as it stands at ``rev``: covenants, identities, the self-witness wall,
    each witnessed memory's signatures, effective.md. No private key is needed."""
    from souveraine.laws import witness

    repo = Repo(memory.root)
    if repo.run("rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0:
        return Report(0, [])
    commit = _commit(repo, rev)
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
