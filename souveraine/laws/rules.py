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
    adopted = not snapshot.parents and conventions.clean(snapshot.message or "") == conventions.ADOPTION
    out = appendonly.breaches(snapshot, extra)
    for path, new, olds in snapshot.introduced():
        found = snapshot.repo.read([new, *olds])
        data, before = found[new] or b"", [found[o] or b"" for o in olds]
        out += [_key(path, f) for f in keys.new(data, before, path)]
        if adopted:
            continue  # an adopted vault's notes predate the laws; only key material is judged
        if frontmatter.applies(path):
            out += frontmatter.breaches(path, data, before)
        if witness.applies(path):
            out += witness.breaches(path, data.decode("utf-8", errors="replace"), snapshot, before)
    if not adopted:
        out += witness.changes(snapshot, {path for path, _, _ in snapshot.introduced()})
    if message and snapshot.message is not None:
        out += messages.breaches(snapshot.message, lambda: snapshot.diffs[0], merge=snapshot.is_merge)
    for breach in out:
        breach.commit = snapshot.commit
    return out


def prefetch(snapshots: list[Snapshot], names: list[str] = ()) -> None:
    """Read, with one `git cat-file`, every blob the rules will want (a changed file's
    new and old content) and the other ``names`` asked for."""
    wanted = list(names)
    for snap in snapshots:
        for diff in snap.diffs:
            wanted += [oid for e in diff if e.new for oid in (e.new, e.old) if oid]
    if wanted:
        snapshots[0].repo.read(wanted)


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
