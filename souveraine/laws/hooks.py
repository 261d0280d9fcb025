"""The git hooks' logic: each returns an exit status and prints its refusals on stderr."""

import os
import subprocess
import sys
from pathlib import Path

from souveraine.errors import SouveraineError
from souveraine.store import conventions, layout


def main(argv: list[str]) -> int:
    if not argv:
        print("souveraine: usage: python -m souveraine.laws HOOK [ARGS]", file=sys.stderr)
        return 2
    name, args = argv[0], argv[1:]
    handler = HOOKS.get(name)
    if handler is None:
        print(f"souveraine: unknown hook '{name}'; known: {', '.join(HOOKS)}", file=sys.stderr)
        return 2
    try:
        problems = handler(args)
    except SouveraineError as exc:
        problems = [str(exc)]
    for line in problems:
        print(f"souveraine: {line}", file=sys.stderr)
    return 1 if problems else 0


def commit_msg(args: list[str]) -> list[str]:
    if not args:
        return ["commit-msg: the message file's path is missing"]
    message = Path(args[0]).read_text(encoding="utf-8", errors="replace")
    why = conventions.problem(message)
    return [f"commit refused: {why}"] if why else []


def pre_commit(args: list[str]) -> list[str]:
    root = Path(_git("rev-parse", "--show-toplevel").strip())
    extra = _extra_append_only(root)
    problems = []
    for status, path in _staged(root):
        if not layout.is_append_only(path, extra):
            continue
        if status.startswith(("D", "R")):
            problems.append(f"{path}: append-only, so it cannot be deleted or renamed; leave it and append a correction entry instead")
        elif status.startswith("M"):
            old = _git_bytes("cat-file", "blob", f"HEAD:{path}")
            new = _git_bytes("cat-file", "blob", f":{path}")
            if not new.startswith(old):
                problems.append(f"{path}: append-only, but the change rewrites what was already committed; restore it and append a correction entry instead")
    from souveraine.identity import integrity

    for status, path in _staged(root):
        if path.startswith("memories/") and status.startswith(("A", "M")):
            problems += integrity.check(path, _git("cat-file", "blob", f":{path}"),
                                        lambda rel: _git("cat-file", "blob", f":{rel}", check=False) or None)
    return problems


def post_commit(args: list[str]) -> list[str]:
    return []


HOOKS = {"pre-commit": pre_commit, "commit-msg": commit_msg, "post-commit": post_commit}


def _staged(root: Path) -> list[tuple[str, str]]:
    out = _git("diff", "--cached", "--name-status", "-z", "-M", "HEAD", check=False)
    parts = out.split("\0")
    staged, i = [], 0
    while i < len(parts) - 1:
        status = parts[i]
        if status.startswith(("R", "C")):
            staged.append((status, parts[i + 1]))
            i += 3
        else:
            staged.append((status, parts[i + 1]))
            i += 2
    return staged


def _extra_append_only(root: Path) -> tuple[str, ...]:
    from souveraine.store import config

    try:
        return tuple(config.load(root / "souveraine.toml")["laws"]["append_only"])
    except SouveraineError:
        return ()


def _git(*args: str, check: bool = True) -> str:
    return _git_bytes(*args, check=check).decode("utf-8", errors="replace")


def _git_bytes(*args: str, check: bool = True) -> bytes:
    done = subprocess.run(["git", *args], capture_output=True, env=os.environ)
    if check and done.returncode != 0:
        raise SouveraineError(f"git {args[0]} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout
