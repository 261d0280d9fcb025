import json
import os
import shutil
import sys
import types

from souveraine.laws import hooks, install
from tests.laws.conftest import DAY, DAY_TEXT
from tests.laws.steps import commit_all, git_run, refusal, write
from tests.support import git, souveraine

HOOKS = {"pre-commit": True, "commit-msg": True, "post-commit": True, "pre-merge-commit": True, "post-merge": True,
         "reference-transaction": True, "souveraine-merge": True}


def only_git(tmp_path):
    """A PATH holding git and nothing else, as cron or a GUI may give."""
    folder = tmp_path / "only-git"
    folder.mkdir()
    (folder / "git").symlink_to(shutil.which("git"))
    return {"PATH": str(folder)}


def test_hooks_work_with_a_path_holding_only_git(memory, tmp_path):
    env = only_git(tmp_path)
    write(memory.root, DAY, "\nA turn from cron.\n", mode="a")
    done = commit_all(memory.root, "chore(journal): a turn from cron", env=env)
    assert (done.returncode, done.stderr) == (0, "")
    write(memory.root, DAY, DAY_TEXT)
    refused = commit_all(memory.root, "chore(journal): rewrite", env=env)
    assert refusal(refused)[0].startswith(f"souveraine: {DAY}: append-only, but this change cuts")
    git(memory.root, "reset", "-q", "--hard")
    bad = git_run(memory.root, "commit", "-q", "--allow-empty", "-m", "no convention", env=env)
    assert "is not a Conventional Commit" in bad.stderr


def test_a_gone_tool_is_named_plainly(memory, tmp_path):
    hook = memory.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(hook.read_text().replace(sys.executable, str(tmp_path / "gone" / "python")))
    assert install.installed(memory.root)["pre-commit"] is False
    write(memory.root, DAY, "\nA turn.\n", mode="a")
    done = commit_all(memory.root, "chore(journal): a turn", env=only_git(tmp_path))
    assert done.returncode == 1
    assert done.stderr == (f"souveraine: the pre-commit hook cannot run: the souveraine tool is gone (not at "
                           f"{tmp_path / 'gone' / 'python'}, not on PATH); reinstall it, then run 'souveraine hook install'\n")


def test_install_restores_hooks_and_keeps_a_foreign_one(invoke, memory):
    hooks_dir = memory.root / ".git" / "hooks"
    (hooks_dir / "post-commit").write_text("#!/bin/sh\necho mine\n")
    (hooks_dir / "commit-msg").unlink()
    assert install.installed(memory.root) == {**HOOKS, "commit-msg": False, "post-commit": False}
    listed = invoke("hook")
    assert listed.stdout == ("pre-commit: installed\ncommit-msg: MISSING\npost-commit: MISSING\npre-merge-commit: installed\n"
                             "post-merge: installed\nreference-transaction: installed\nsouveraine-merge: installed\n")
    assert listed.stderr == "some hooks are missing; run 'souveraine hook install'\n"
    assert {"hook": "commit-msg", "installed": False} in json.loads(invoke("hook", "list", "--json").stdout)
    result = invoke("hook", "install")
    assert (result.exit_code, result.stderr) == (0, f"installed pre-commit, commit-msg, post-commit, pre-merge-commit, "
                                                    f"post-merge, reference-transaction, souveraine-merge in {hooks_dir}\n")
    assert install.installed(memory.root) == HOOKS
    assert (hooks_dir / "post-commit.before-souveraine").read_text() == "#!/bin/sh\necho mine\n"
    assert git(memory.root, "config", "core.hooksPath").strip() == str(hooks_dir)


def test_a_hook_runs_by_hand_from_the_cli(memory):
    write(memory.root, DAY, DAY_TEXT.replace("Good morning.", "Hi."))
    git(memory.root, "add", DAY)
    done = souveraine("hook", "pre-commit", cwd=memory.root / "journal")
    assert done.returncode == 1
    assert done.stderr.startswith(f"souveraine: {DAY}: append-only, but this change changes its committed text at line 12")
    message = memory.root / ".git" / "MSG"
    message.write_text("fix(memory): ok\n")
    assert souveraine("hook", "commit-msg", str(message), cwd=memory.root).returncode == 0


def test_post_commit_calls_the_index_then_the_events_and_never_fails(memory, monkeypatch, capsys):
    calls = []

    def module(name, action):
        package, _, leaf = name.rpartition(".")
        fake = types.ModuleType(name)
        fake.after_commit = action
        parent = types.ModuleType(package)
        setattr(parent, leaf, fake)
        monkeypatch.setitem(sys.modules, package, parent)
        monkeypatch.setitem(sys.modules, name, fake)

    module("souveraine.recall.index", lambda root: calls.append(("index", root)))
    module("souveraine.agents.events", lambda root: 1 / 0)
    monkeypatch.chdir(memory.root)
    assert hooks.main(["post-commit"]) == 0
    assert calls == [("index", memory.root)]
    assert capsys.readouterr().err == ("souveraine: post-commit: agents.events failed "
                                       "(ZeroDivisionError: division by zero); the commit is kept\n")


def test_an_unknown_hook_is_a_usage_error(capsys):
    assert hooks.main(["pre-push"]) == 2
    assert ("HOOK one of: pre-commit, commit-msg, post-commit, pre-merge-commit, post-merge, reference-transaction, "
            "pre-receive") in capsys.readouterr().err


def test_the_entry_scripts_are_shipped_for_every_hook():
    from souveraine import resources

    for name in (*hooks.CLIENT, *hooks.SERVER):
        script = resources.path("hooks") / name
        assert os.access(script, os.X_OK), name
        assert f'-c "$ENTRY" {name}' in script.read_text()
