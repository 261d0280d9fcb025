"""Helpers for tests: the real git, the real binary, the clean-status check."""

import os
import subprocess
import sys
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
