"""Installing the hooks: entry scripts from hooks/, with this interpreter's path recorded."""

import os
import sys
from pathlib import Path

from souveraine import resources
from souveraine.store import git
from souveraine.store.atomic import atomic_write

HOOK_NAMES = ("pre-commit", "commit-msg", "post-commit")


def hooks_dir(root: Path) -> Path:
    gitdir = git.run(root, "rev-parse", "--absolute-git-dir").stdout.strip()
    return Path(gitdir) / "hooks"


def install(root: Path) -> list[str]:
    """Write each hook into the memory's .git/hooks; returns the names installed."""
    target = hooks_dir(root)
    target.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    home = str(Path(resources.package_dir()).parent)
    names = []
    for name in HOOK_NAMES:
        text = (resources.path("hooks") / name).read_text(encoding="utf-8")
        text = text.replace("@PYTHON@", python).replace("@HOME@", home)
        atomic_write(target / name, text, mode=0o755)
        names.append(name)
    # A global core.hooksPath would otherwise bypass the memory's own hooks.
    git.run(root, "config", "--local", "core.hooksPath", str(target))
    return names


def installed(root: Path) -> dict[str, bool]:
    """Which of our hooks are in place and point at a Souveraine that still exists."""
    try:
        target = Path(git.run(root, "rev-parse", "--git-path", "hooks").stdout.strip())
    except Exception:
        return {name: False for name in HOOK_NAMES}
    if not target.is_absolute():
        target = root / target
    return {name: _ours(target / name) for name in HOOK_NAMES}


def _ours(path: Path) -> bool:
    try:
        return os.access(path, os.X_OK) and "souveraine" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
