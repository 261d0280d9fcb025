"""The laws applied to one snapshot: the one place pre-commit, verify and the remote's guard share.

Content rules look only at what a snapshot introduces (its new blobs), so a hook's cost
follows the size of the change, not of the memory.
"""

from souveraine.laws import appendonly, frontmatter, keys, messages, witness
from souveraine.laws.breach import Breach
from souveraine.laws.snapshot import Snapshot
from souveraine.store import conventions

CONFIG = "souveraine.toml"


def judge(snapshot: Snapshot, *, extra: tuple[str, ...] = (), message: bool = True) -> list[Breach]:
    """Every breach in ``snapshot``: append-only files, key material, frontmatter, witnesses,
    and (when ``message`` and the snapshot has one) its commit message."""
    prefetch([snapshot])
    repo = snapshot.repo
    adopted = not snapshot.parents and conventions.clean(snapshot.message or "") == conventions.ADOPTION
    out = appendonly.breaches(snapshot, extra)
    introduced = snapshot.introduced()
    for path, new, olds in introduced:
        data = repo.blob(new) or b""
        grown = next((repo.size(o) for o in olds if 0 < (repo.size(o) or 0) <= len(data) and repo.grows(o, data)), None)
        before = _Olds(repo, olds)
        like = repo.at_hand(olds[0]) if grown is None and len(olds) == 1 else None
        out += [_key(path, f) for f in keys.new(data, before, path, grown, like)]
        if adopted:
            continue  # an adopted vault's notes predate the laws; only key material is judged
        if frontmatter.applies(path):
            out += frontmatter.breaches(path, data, before, grown)
        if witness.applies(path):
            out += witness.breaches(path, data, snapshot, list(before))
    if not adopted:
        out += witness.changes(snapshot, {path for path, _, _ in introduced})
    if message and snapshot.message is not None:
        out += messages.breaches(snapshot.message, lambda: snapshot.diffs[0], merge=snapshot.is_merge)
    for breach in out:
        breach.commit = snapshot.commit
    return out


class _Olds:
    """A file's versions in the parents, read only when a rule iterates them (most never do:
    an append is proven by its hash, see Repo.grows)."""

    def __init__(self, repo, olds: list[str]):
        self.repo, self.olds = repo, olds

    def __iter__(self):
        if not self.olds:
            return iter(())
        found = self.repo.read(self.olds)
        return iter([found[o] or b"" for o in self.olds])

    def __bool__(self) -> bool:
        return bool(self.olds)


def prefetch(snapshots: list[Snapshot], names: list[str] = ()) -> None:
    """Read, with one `git cat-file`, what the rules will want: every changed file's new
    content, its old content where a rule reads it whole (a merge's, the witness's files),
    else only the old size (Repo.grows proves an append with it); and the ``names`` asked for.

    Newest commit first: git keeps the newest version of a file whole in its packs and
    the older ones as deltas against it, so read in that order each delta finds its base
    at hand (a third less of git's time than oldest first).
    """
    wanted, sized = list(names), []
    for snap in reversed(snapshots):
        whole = snap.is_merge
        for diff in snap.diffs:
            for e in diff:
                if e.new is None:
                    continue
                wanted.append(e.new)
                if e.old:
                    (wanted if whole or witness.watches(e.path) else sized).append(e.old)
    if wanted or sized:
        snapshots[0].repo.read(wanted, sized)


def config_name(snapshot: Snapshot) -> str | None:
    """Where the laws in force for ``snapshot`` are: its first parent's souveraine.toml."""
    return f"{snapshot.parents[0]}:{CONFIG}" if snapshot.parents else None


def extra_globs(snapshot: Snapshot) -> tuple[str, ...]:
    name = config_name(snapshot)
    return appendonly.globs(snapshot.repo.blob(name)) if name else ()


def _key(path: str, finding: keys.Finding) -> Breach:
    return Breach(path, "private_key",
                  f"{path}:{finding.line}: {finding.what} — private key material never enters a memory; "
                  f"remove it (git rm --cached {path}) and keep keys under ~/.config/souveraine/keys/")
