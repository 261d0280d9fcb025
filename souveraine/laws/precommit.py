"""The pre-commit law: the staged index judged against HEAD, in-process or from the hook.

`problems(root)` is what the tool may call before committing, and what the hook prints.
"""

from pathlib import Path

from souveraine.laws import rules
from souveraine.laws.breach import Breach
from souveraine.laws.repo import Repo
from souveraine.laws.snapshot import staged


def breaches(root: Path, *, inherit: bool = False, amend: bool | None = None) -> list[Breach]:
    """Every breach in what is staged (GIT_INDEX_FILE's index when set).

    ``inherit`` keeps git's environment as a hook receives it; ``amend`` None detects it.
    """
    repo = Repo(root, inherit=inherit)
    snapshot = staged(repo, amend)
    config = rules.config_name(snapshot)
    rules.prefetch([snapshot], [config] if config else [])
    return rules.judge(snapshot, extra=rules.extra_globs(snapshot), message=False)


def problems(root: Path) -> list[str]:
    """One line per breach: the file, the rule broken, what to do instead."""
    return [str(b) for b in breaches(root, amend=False)]
