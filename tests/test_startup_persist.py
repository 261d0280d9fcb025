"""What persist and the hooks import: they run after every answer and on every commit, so they
stay lean (measured in bench/, never timed here)."""

import os
import subprocess

from tests.support import souveraine
from tests.test_startup import HEAVY, imported, top


def test_a_persist_imports_neither_click_nor_a_heavy_library(memory):
    found = imported("--memory", str(memory.root), "persist", "--user", "What about item 4 on the list?",
                     "--assistant", "I'll follow up on item 4 tomorrow; item 3 is done.")
    assert "souveraine.tempos.persist" in found and "souveraine.laws.precommit" in found   # judged in-process
    assert not top(found) & {*HEAVY, "click"}
    assert not {"hashlib", "_hashlib"} & found      # OpenSSL's load, for a few short hashes (store.hashing)
    again = imported("--memory", str(memory.root), "persist", "--user", "And item 5?", "--assistant", "Item 5 is done.")
    assert "typing" not in again     # annotations from collections.abc (10 M instructions); tomllib's, once cached, not read
    assert not {m for m in found if m.startswith("souveraine.cli.")} - {"souveraine.cli", "souveraine.cli.lean",
                                                                         "souveraine.cli.lean_persist",
                                                                         "souveraine.cli.now"}


def _hook_imports(root, *args) -> dict[str, set[str]]:
    """Each hook process's imports in a real `git commit` (Python's -X importtime, through git's stderr)."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    env.pop("SOUVERAINE_JUDGED", None)
    done = subprocess.run(["git", "-C", str(root), "commit", "-q", *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    processes, current = [], None
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        name = line.rsplit("|", 1)[1].strip()
        if name == "imported package":      # the header each fresh interpreter prints first
            current = set()
            processes.append(current)
        elif current is not None:
            current.add(name)
    return {_which(p): p for p in processes if "souveraine.laws.hooks" in p}


def _which(modules: set[str]) -> str:
    if "souveraine.laws.precommit" in modules:
        return "pre-commit"
    if "souveraine.laws.messages" in modules:
        return "commit-msg"
    return "post-commit" if "souveraine.recall.index" in modules else "other"


def test_the_hooks_of_a_commit_import_no_heavy_library(memory):
    assert souveraine("--memory", str(memory.root), "recall", "anything").returncode == 0   # an index to keep
    note = memory.root / "people" / "_index.md"
    note.write_text(note.read_text(encoding="utf-8") + "- a line added by hand\n", encoding="utf-8")
    hooks = _hook_imports(memory.root, "-m", "docs(people): a line by hand", "--", "people/_index.md")
    assert {"pre-commit", "commit-msg", "post-commit"} <= set(hooks), sorted(hooks)
    # post-commit indexes the changed note for recall, which reads it as recall's reader does
    reading = {"post-commit": {"frontmatter", "yaml", "markdown_it", "mdit_py_plugins", "mdurl"}}
    for name in ("pre-commit", "commit-msg", "post-commit"):
        heavy = top(hooks[name]) & {*HEAVY, "click"} - reading.get(name, set())
        assert not heavy, (name, sorted(heavy))
        assert not {m for m in hooks[name] if m.startswith(("souveraine.cli", "souveraine.tempos"))}, name
    assert "souveraine.laws.precommit" not in hooks["commit-msg"]
    assert "site" not in hooks["commit-msg"] and "site" in hooks["pre-commit"]   # python -S: the package alone
