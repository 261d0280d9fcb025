"""Amends, judged by the parent the commit really has.

`git commit --amend` replaces HEAD, so it may correct the last append; git does not tell
the pre-commit hook it is amending, and its command line proves nothing
(`git commit -m '--amend'`). So when the staged index breaks the laws against HEAD but
not against HEAD's parents, pre-commit lets it through and leaves a mark; the
reference-transaction hook, which runs once the commit exists and before any branch
moves to it, judges that commit against its real parents and refuses the update when it
breaks a law. Without that hook (git before 2.28) pre-commit judges against HEAD alone:
stricter, never looser.
"""

from pathlib import Path

from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo

MARK = "souveraine-amend"   # in the git dir: HEAD's id when an amend was let through
HOOK = "reference-transaction"


def possible(hooks: Path) -> bool:
    """Whether the commit can still be judged once it exists (our reference-transaction hook is there)."""
    try:
        return "souveraine.laws" in (hooks / HOOK).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def defer(gitdir: Path, head: str) -> None:
    Path(gitdir, MARK).write_text(head + "\n", encoding="ascii")


def judge(repo: Repo, gitdir: Path, updates: list[tuple[str, str, str]]) -> list[Breach]:
    """The breaches of the new commit a branch is about to move to, when pre-commit left a mark.

    Only an update from the marked HEAD to a commit no ref reaches yet is judged: the
    amend itself, not a checkout or a fetch that happens to follow it.
    """
    mark = Path(gitdir, MARK)
    try:
        head = mark.read_text(encoding="ascii").strip()
    except OSError:
        return []
    mark.unlink(missing_ok=True)
    new = {n for old, n, ref in updates if old == head and (ref == "HEAD" or ref.startswith("refs/heads/"))}
    fresh = [n for n in new if set(n) != {"0"} and repo.out("rev-list", "-n", "1", n, "--not", "--all").strip()]
    if not fresh:
        return []
    from souveraine.laws import history

    return history.judge(repo, ["--no-walk", *fresh])[1]
