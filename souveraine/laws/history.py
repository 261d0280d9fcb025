"""A run of commits judged by the laws: what `verify` and the remote's guard both replay."""

from collections.abc import Callable

from souveraine.laws import rules
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.laws.snapshot import commits


def judge(repo: Repo, revs: list[str], progress: Callable[[int, int], None] | None = None) -> tuple[int, list[Breach]]:
    """(commits judged, breaches) for the commits ``revs`` select (`git log` arguments), oldest first."""
    total = _count(repo, revs) if progress else 0
    done, found = 0, []
    for chunk in commits(repo, revs):
        configs = [n for n in map(rules.config_name, chunk) if n]
        rules.prefetch(chunk, configs)
        for snapshot in chunk:
            found += rules.judge(snapshot, extra=rules.extra_globs(snapshot))
        done += len(chunk)
        repo.forget()
        if progress:
            progress(done, total)
    return done, found


def _count(repo: Repo, revs: list[str]) -> int:
    return int(repo.out("rev-list", "--count", *revs, "--").strip() or 0)
