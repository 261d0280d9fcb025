"""The pre-commit law: the staged index judged against HEAD, in-process or from the hook.

`problems(root)` is what the tool may call before committing, and what the hook prints.
"""

import os
from pathlib import Path

from souveraine.laws import rules
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.laws.snapshot import staged


def breaches(root: Path, *, inherit: bool = False, amend: bool = False, follow_index: bool = True,
             merging: bool = False) -> list[Breach]:
    """Every breach in what is staged (GIT_INDEX_FILE's index when set).

    ``inherit`` keeps git's environment as a hook receives it; ``amend`` judges against
    HEAD's parents; ``follow_index`` False ignores an inherited GIT_INDEX_FILE (the tool's own commits).
    """
    repo = Repo(root, inherit=inherit, follow_index=follow_index)
    snapshot = staged(repo, amend, merging)
    config = rules.config_name(snapshot)
    rules.prefetch([snapshot], [config] if config else [])
    return rules.judge(snapshot, extra=rules.extra_globs(snapshot), message=False)


def hook(root: Path) -> list[Breach]:
    """The pre-commit hook's judgment: against HEAD; what only an amend could make lawful is let
    through with a mark, and judged by its real parent once it is a commit (laws/amend.py)."""
    found = breaches(root, inherit=True)
    if not found or "GIT_INDEX_FILE" not in os.environ:  # run by hand, no commit follows: judge against HEAD
        return found
    from souveraine.laws import amend
    from souveraine.laws.install import hooks_dir

    found_head = Repo(root, inherit=True).out("rev-parse", "--absolute-git-dir", "--verify", "-q", "HEAD", check=False).split()
    if len(found_head) != 2:  # the first commit: nothing to amend
        return found
    gitdir, head = found_head
    if Path(gitdir, "MERGE_HEAD").exists():  # git refuses to amend during a merge
        return found
    if amend.possible(hooks_dir(root)) and not breaches(root, inherit=True, amend=True):
        amend.defer(Path(gitdir), head)
        return []
    return found


def problems(root: Path, follow_index: bool = True) -> list[str]:
    """One line per breach: the file, the rule broken, what to do instead."""
    return [str(b) for b in breaches(root, amend=False, follow_index=follow_index)]
