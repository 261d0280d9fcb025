"""The tool's own commits are judged in-process by the same functions the hooks call."""

import subprocess

import pytest

from souveraine.errors import Refused
from souveraine.store import git as gitstore
from tests.support import assert_clean, git


def rewrite_inner_voice(memory):
    with memory.change("fix(memory): rewrite the inner voice") as change:
        change.write("system/metacognition/subconscious.md", "rewritten\n")


def refusal(memory) -> str:
    with pytest.raises(Refused) as err:
        rewrite_inner_voice(memory)
    assert_clean(memory.root)
    return str(err.value)


def test_in_process_and_hook_refuse_alike(memory):
    in_process = refusal(memory)
    gitstore.register(None, None)  # now only the hooks judge
    by_hook = refusal(memory)
    assert in_process == by_hook
    assert in_process.startswith("system/metacognition/subconscious.md: append-only")


def test_the_hooks_step_aside_only_for_judged_commits(memory):
    with memory.change("feat(memory): a note") as change:
        change.write("memories/n.md", "---\ndescription: n\n---\nn\n")
    assert change.sha
    (memory.root / "system/metacognition/subconscious.md").write_text("rewritten by hand\n")
    done = subprocess.run(
        ["git", "-C", str(memory.root), "commit", "-qam", "fix(memory): by hand"], capture_output=True, text=True)
    assert done.returncode == 1 and "append-only" in done.stderr
    git(memory.root, "checkout", "--", ".")
