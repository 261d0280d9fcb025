"""The laws, judged inside the committing process instead of by three hook interpreters.

`enable()` registers with store.git: before each of the tool's own commits the staged
index and the message are judged by the same functions the pre-commit and commit-msg
hooks call, and after it the post-commit work runs here (and verify's record moves onto
the commit, laws/verified.py). The hooks see
SOUVERAINE_JUDGED=1 and step aside. A client-side hook can always be skipped
(`--no-verify`), so this opens no new door; the remote's guard and `verify` judge every
commit whoever made it.
"""

from pathlib import Path

from souveraine.store import git


def judge(root: Path, message: str) -> list[str]:
    from souveraine.laws import messages, precommit

    lines = precommit.problems(root, follow_index=False)
    lines += [str(b) for b in messages.breaches(message, lambda: _staged_diff(root))]
    return lines


def after(root: Path) -> None:
    from souveraine.laws import hooks, verified

    verified.after_commit(root)   # judged just now: verify's record may move onto it
    hooks.after_commit(root)


def enable() -> None:
    git.register(judge, after)


def _staged_diff(root: Path):
    from souveraine.laws.repo import Repo
    from souveraine.laws.snapshot import staged

    return staged(Repo(root, follow_index=False)).diffs[0]
