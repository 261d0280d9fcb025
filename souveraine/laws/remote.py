"""The remote's guard: a shared bare repository's pre-receive hook.

Client hooks can be skipped with `--no-verify`; this one cannot. Every pushed commit
is judged by the same rules as a local commit, and no branch may lose history: an
update must fast-forward, and a deletion may drop no commit that another ref does not keep.
Git runs pre-receive with the pushed objects in quarantine, reachable only through the
environment it exports, so the guard inherits that environment.
"""

from pathlib import Path

from souveraine.laws import history
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo


def parse_updates(text: str) -> list[tuple[str, str, str]]:
    """pre-receive's (and reference-transaction's) stdin: one `<old-oid> <new-oid> <ref>` line per ref."""
    return [tuple(line.split(" ", 2)) for line in text.splitlines() if line.count(" ") >= 2]


def guard(gitdir: Path, updates: list[tuple[str, str, str]]) -> list[Breach]:
    """Every breach the push would bring into the shared memory."""
    repo = Repo(gitdir, inherit=True)
    out, tips = [], []
    for old, new, ref in updates:
        if _zero(new):
            out += _deletion(repo, old, ref)
            continue
        if not _zero(old) and not _ancestor(repo, old, new):
            out.append(Breach(ref, "history_rewrite",
                              f"{ref}: refused, a non-fast-forward update would rewrite the shared history; "
                              f"fetch, merge or rebase your work onto {_short(old)} and push again (never --force)"))
        tips.append(new)
    if tips:
        out += history.judge(repo, [*tips, "--not", "--all"])[1]
    return out


def _deletion(repo: Repo, old: str, ref: str) -> list[Breach]:
    if ref == _current(repo):
        return [Breach(ref, "current_branch_delete",
                       f"{ref}: refused, it is the branch the shared memory's HEAD names, which every clone "
                       "follows; keep it, and delete other branches only")]
    kept = repo.out("rev-list", "--count", old, "--not", f"--exclude={ref}", "--all", "--").strip()
    if kept == "0":
        return []
    return [Breach(ref, "history_loss",
                   f"{ref}: refused, deleting it would drop {kept} commit(s) no other branch keeps; merge it into a kept branch first")]


def _current(repo: Repo) -> str | None:
    """The branch the bare repository's HEAD names (what a clone checks out)."""
    done = repo.run("symbolic-ref", "-q", "HEAD", check=False)
    return done.stdout.decode().strip() or None


def _ancestor(repo: Repo, old: str, new: str) -> bool:
    return repo.run("merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def _zero(oid: str) -> bool:
    return set(oid) == {"0"}


def _short(oid: str) -> str:
    return oid[:12]
