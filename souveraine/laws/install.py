"""Installing the hooks: entry scripts from hooks/, with this interpreter's absolute path recorded.

The recorded interpreter makes a hook work with an empty PATH (cron, editors, Obsidian's
git plugin); the script falls back to `souveraine` on PATH, and says plainly what to do
when the tool is gone. A hook that is not ours is kept beside ours as `<name>.before-souveraine`.
"""

import os
import sys
from pathlib import Path

from souveraine import resources
from souveraine.errors import UsageError
from souveraine.laws.hooks import CLIENT, SERVER
from souveraine.store import git
from souveraine.store.atomic import atomic_write

KEPT = ".before-souveraine"
MARK = "souveraine."  # every entry script runs a module of ours
# The merge driver for append-only files (sync/driver.py): a script beside the hooks, named in
# the repository's config; .gitattributes (sync/attributes.py) says which paths it merges.
DRIVER = "souveraine-append"
DRIVER_SCRIPT = "souveraine-merge"
HOOK_NAMES = (*CLIENT, DRIVER_SCRIPT)


def hooks_dir(root: Path) -> Path:
    """The repository's own hooks folder, shared by every worktree (forks live in worktrees)."""
    common = git.run(root, "rev-parse", "--path-format=absolute", "--git-common-dir").stdout.strip()
    return Path(common) / "hooks"


def install(root: Path) -> list[str]:
    """Write the client hooks into the memory's own hooks folder; the names installed."""
    target = hooks_dir(root)
    names = _write(target, HOOK_NAMES)
    # A global core.hooksPath would otherwise bypass the memory's own hooks.
    git.run(root, "config", "--local", "core.hooksPath", str(target))
    git.run(root, "config", "--local", f"merge.{DRIVER}.name",
            "Souveraine: append-only files, both sides' entries kept whole, in time order")
    git.run(root, "config", "--local", f"merge.{DRIVER}.driver", driver_command(target))
    return names


def driver_command(hooks: Path) -> str:
    """The command git runs for the merge driver: the ancestor, ours, theirs, the path."""
    return f"'{_quoted(str(hooks / DRIVER_SCRIPT))}' %O %A %B %P"


# git's own refusals on the shared remote, a second wall behind the pre-receive hook.
BARE_CONFIG = {"receive.denyNonFastForwards": "true", "receive.denyDeletes": "true"}


def install_bare(path: Path) -> list[str]:
    """Guard a bare repository used as the shared remote: the pre-receive hook, and git's own
    refusal of non-fast-forward pushes and of deletions as a second wall."""
    path = Path(path).expanduser().resolve()
    done = git.run(path, "rev-parse", "--is-bare-repository", check=False) if path.is_dir() else None
    if done is None or done.returncode != 0 or done.stdout.strip() != "true":
        raise UsageError(f"{path} is not a bare git repository; give the shared remote's folder (made by 'git init --bare')")
    target = hooks_dir(path)
    names = _write(target, SERVER)
    git.run(path, "config", "--local", "core.hooksPath", str(target))
    for key, value in BARE_CONFIG.items():
        git.run(path, "config", "--local", key, value)
    return names


def installed(root: Path, names: tuple[str, ...] = HOOK_NAMES) -> dict[str, bool]:
    """Which of our hooks are in place and point at a Souveraine that still exists."""
    try:
        target = Path(git.run(root, "rev-parse", "--git-path", "hooks").stdout.strip())
    except Exception:
        return {name: False for name in names}
    if not target.is_absolute():
        target = Path(root) / target
    found = {name: _ours(target / name) for name in names if name != DRIVER_SCRIPT}
    if DRIVER_SCRIPT in names:
        found[DRIVER_SCRIPT] = _driver_installed(root)
    return found


def _driver_installed(root: Path) -> bool:
    """The merge driver is configured, and the script it names is ours and can run."""
    done = git.run(root, "config", "--get", f"merge.{DRIVER}.driver", check=False)
    command = done.stdout.strip()
    if not command.startswith("'") or not command.endswith("' %O %A %B %P"):
        return False
    return _ours(Path(command[1:-len("' %O %A %B %P")].replace("'\\''", "'")))


def _write(target: Path, names: tuple[str, ...]) -> list[str]:
    target.mkdir(parents=True, exist_ok=True)
    home = str(resources.package_dir().parent)
    for name in names:
        text = (resources.path("hooks") / name).read_text(encoding="utf-8")
        text = text.replace("@PYTHON@", _quoted(sys.executable)).replace("@HOME@", _quoted(home))
        _keep_foreign(target / name)
        atomic_write(target / name, text, mode=0o755)
    return list(names)


def _quoted(value: str) -> str:
    """``value`` safe inside the script's single quotes."""
    return value.replace("'", "'\\''")


def _keep_foreign(path: Path) -> None:
    kept = path.with_name(path.name + KEPT)
    if path.is_file() and MARK not in _text(path) and not kept.exists():
        os.replace(path, kept)


def _ours(path: Path) -> bool:
    """Ours, executable, and the Souveraine it records (or one on PATH) still there."""
    text = _text(path)
    if MARK not in text or not os.access(path, os.X_OK):
        return False
    recorded = dict(line.split("=", 1) for line in text.splitlines() if line.startswith(("PY=", "SOUVERAINE_HOME=")))
    python = recorded.get("PY", "").strip("'")
    home = recorded.get("SOUVERAINE_HOME", "").strip("'")
    from shutil import which

    return (os.access(python, os.X_OK) and Path(home, "souveraine").is_dir()) or which("souveraine") is not None


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
