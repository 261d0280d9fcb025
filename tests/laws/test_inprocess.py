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


def test_a_commit_stages_new_deleted_and_folder_paths_alone(memory):
    with memory.change("feat(memory): two notes") as change:
        change.write("memories/a.md", "---\ndescription: a\n---\na\n")
        change.write("memories/b.md", "---\ndescription: b\n---\nb\n")
    (memory.root / "memories/a.md").unlink()
    (memory.root / "domains/new/deeper").mkdir(parents=True)
    (memory.root / "domains/new/deeper/c.md").write_text("c\n")
    (memory.root / "people/_index.md").write_text("not ours to commit\n")
    sha = gitstore.commit(memory.root, ["memories/a.md", "domains/new"], "fix(memory): drop a note, add a domain")
    changed = git(memory.root, "show", "--name-status", "--format=", sha).split("\n")
    assert sorted(filter(None, changed)) == ["A\tdomains/new/deeper/c.md", "D\tmemories/a.md"]
    assert git(memory.root, "status", "--porcelain") == " M people/_index.md\n"
    git(memory.root, "checkout", "--", ".")


def test_the_judge_reads_the_staged_difference_the_commit_read(memory, monkeypatch):
    from souveraine.laws import snapshot

    seen = []
    real = snapshot.parse_raw
    monkeypatch.setattr(snapshot, "parse_raw", lambda raw: seen.append(raw) or real(raw))
    calls = []
    run = gitstore.run
    monkeypatch.setattr(gitstore, "run", lambda root, *args, **kw: calls.append(args[0]) or run(root, *args, **kw))
    refused = refusal(memory)   # the judge still sees the whole staged change
    assert refused.startswith("system/metacognition/subconscious.md: append-only")
    assert calls.count("diff-index") == 1 and seen
    assert gitstore.staged_raw(memory.root, gitstore.head(memory.root)) is None   # forgotten after the commit
