"""Helpers for tests: the real git, the real binary, the clean-status check."""

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def git(root, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def assert_clean(root) -> None:
    """The memory's git status is clean: every change was committed whole."""
    assert git(root, "status", "--porcelain") == ""


def souveraine(*args, cwd=None, env=None, input=None) -> subprocess.CompletedProcess:
    """The real binary, from the checkout, as a separate process."""
    return subprocess.run([sys.executable, str(ROOT / "bin" / "souveraine"), *args], cwd=cwd,
                          env={**os.environ, **(env or {})}, input=input, capture_output=True, text=True)


@contextmanager
def isolated_session(tmp_path_factory):
    """The per-test isolation, for memories built once per session and copied."""
    import pytest

    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n[init]\n\tdefaultBranch = main\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        patch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        patch.delenv("SOUVERAINE_MEMORY", raising=False)
        yield home


def copy_memory(template: Path, dest: Path, config_from: Path | None = None):
    """A copy of a memory built once: faster than init for every test, and just as real.

    Its hooks path is its own; ``config_from`` (the template's XDG_CONFIG_HOME) brings the
    private keys init made along into this test's own config folder.
    """
    import shutil

    from souveraine.store.memory import Memory

    shutil.copytree(template, dest, symlinks=True)
    git(dest, "config", "--local", "core.hooksPath", str(dest / ".git" / "hooks"))
    git(dest, "status", "--porcelain")  # the copy's index has other inodes: refresh it once
    if config_from is not None and config_from.is_dir():
        shutil.copytree(config_from, os.environ["XDG_CONFIG_HOME"], dirs_exist_ok=True)
    return Memory(dest)
