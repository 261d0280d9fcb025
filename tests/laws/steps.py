"""What the laws' tests do to a memory: write files and commit them with the real git."""

import os
import subprocess


def write(root, rel, text, mode="w"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode, newline="") as handle:
        handle.write(text)
    return path


def git_run(root, *args, env=None, input=None) -> subprocess.CompletedProcess:
    """git in ``root`` as a person would run it (hooks and all); never raises."""
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, input=input,
                          env={**os.environ, **(env or {})})


def commit_all(root, message, *extra, env=None) -> subprocess.CompletedProcess:
    git_run(root, "add", "-A", env=env)
    return git_run(root, "commit", "-q", "-m", message, *extra, env=env)


def refusal(done: subprocess.CompletedProcess) -> list[str]:
    """The lines of a refused commit, without git's own closing words.

    A change only an amend could make lawful is judged once the commit exists (laws/amend.py):
    git then adds "fatal: ref updates aborted by hook" and exits 128 instead of 1.
    """
    assert done.returncode in (1, 128), done
    return [line for line in done.stderr.splitlines() if line != "fatal: ref updates aborted by hook"]
