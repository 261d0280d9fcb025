import json
import subprocess
import threading

import pytest

from souveraine import bootstrap
from souveraine.bootstrap import init
from souveraine.errors import Refused
from souveraine.store import notes
from souveraine.store.memory import Memory
from tests.support import assert_clean, git, souveraine


def test_init_makes_one_commit_with_every_template_file(tmp_path):
    result = init(tmp_path / "m", identity="ada")
    root = result.root
    assert git(root, "log", "--format=%s").splitlines() == ["feat(init): bootstrap memory"]
    for rel in bootstrap.template_files():
        assert (root / rel).is_file(), rel
        if rel.endswith(".md"):
            note = notes.read(root / rel)
            assert note.get("description"), f"{rel} has no description"
    assert (root / ".skills" / "souveraine" / "SKILL.md").is_file()
    assert ".souveraine/" in (root / ".gitignore").read_text()
    config = Memory(root).config
    assert config["project"]["identity"] == "ada"
    assert len(config["project"]["id"]) == 36
    assert_clean(root)


def test_init_installs_executable_hooks(tmp_path):
    root = init(tmp_path / "m").root
    hooks = root / ".git" / "hooks"
    for name in ("pre-commit", "commit-msg", "post-commit"):
        assert (hooks / name).stat().st_mode & 0o111
    (root / "journal" / "note.md").write_text("x\n")
    done = subprocess.run(["git", "-C", str(root), "commit", "-qam", "nonsense"], capture_output=True, text=True)
    git(root, "add", "journal/note.md")
    done = subprocess.run(["git", "-C", str(root), "commit", "-qm", "nonsense"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "not a Conventional Commit" in done.stderr


def test_each_memory_gets_its_own_project_id(tmp_path):
    a = Memory(init(tmp_path / "a").root).project_id
    b = Memory(init(tmp_path / "b").root).project_id
    assert a != b


def test_init_on_existing_memory_changes_nothing(tmp_path, runner):
    from souveraine.cli import cli

    root = init(tmp_path / "m").root
    head = git(root, "rev-parse", "HEAD")
    result = runner.invoke(cli, ["init", str(root)])
    assert result.exit_code == 0
    assert "already a memory; nothing changed" in result.stderr
    assert git(root, "rev-parse", "HEAD") == head


def test_init_refuses_a_non_empty_folder(tmp_path, runner):
    from souveraine.cli import cli

    folder = tmp_path / "stuff"
    folder.mkdir()
    (folder / "todo.txt").write_text("mine\n")
    result = runner.invoke(cli, ["init", str(folder)])
    assert result.exit_code == 1
    assert "not empty and not a memory; pass --adopt" in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["todo.txt"]


def test_adopt_leaves_every_note_byte_identical(tmp_path):
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text("{}")
    (vault / "Daily").mkdir()
    files = {
        "Daily/2024-01-01.md": "Went for a walk.\r\nNo frontmatter, CRLF.\r\n",
        "README.md": "# My own readme\n",
        "people/_index.md": "---\ntitle: mine\n---\nMy people.\n",
        "broken.md": "---\nkey: [unclosed\n---\nbody\n",
    }
    for rel, text in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_bytes(text.encode())
    result = init(vault, adopt=True)
    assert result.adopted
    for rel, text in files.items():
        assert (vault / rel).read_bytes() == text.encode(), rel
    assert "README.md" in result.skipped and "people/_index.md" in result.skipped
    assert git(vault, "log", "--format=%s").splitlines() == ["feat(init): adopt vault as a memory"]
    assert (vault / "souveraine.toml").is_file()


def test_adopt_keeps_the_vaults_gitignore_and_adds_the_cache(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".gitignore").write_text("private/")
    (vault / "note.md").write_text("mine\n")
    init(vault, adopt=True)
    assert (vault / ".gitignore").read_text().startswith("private/\n# Souveraine's cache")
    (vault / ".souveraine").mkdir(exist_ok=True)
    (vault / ".souveraine" / "index.sqlite").write_text("cache")
    assert_clean(vault)


def test_adopt_refuses_private_keys_naming_them_before_anything_is_written(tmp_path):
    from nacl.signing import SigningKey

    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "hello.md").write_text("# Hello\n")
    (vault / "notes" / "id_ed25519").write_bytes(bytes(SigningKey.generate()))
    (vault / "k.pem").write_text("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+Tq2pLSlkQfsdf8n6Og0W1uJ5LkGHdOlUFVYr3S6kN\n"
                                 "-----END PRIVATE KEY-----\n")
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))
    done = souveraine("init", str(vault), "--adopt")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "k.pem (a PEM PRIVATE KEY block)" in done.stderr and "notes/id_ed25519 (a raw ed25519 key" in done.stderr
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before   # not even a .git
    (vault / ".gitignore").write_text("notes/id_ed25519\n")
    with pytest.raises(Refused, match="k.pem") as refused:
        init(vault, adopt=True)
    assert "id_ed25519" not in str(refused.value)     # ignored by git: it would never be committed
    (vault / "k.pem").unlink()
    assert init(vault, adopt=True).adopted
    assert "id_ed25519" not in git(vault, "ls-files")


def test_force_restores_missing_files_without_overwriting(tmp_path):
    root = init(tmp_path / "m").root
    (root / "system" / "persona" / "principles.md").unlink()
    (root / "system" / "state.md").write_text((root / "system" / "state.md").read_text() + "\nmine\n")
    git(root, "commit", "-qam", "fix(memory): my edit, principles dropped")
    result = init(root, force=True)
    assert "system/persona/principles.md" in result.written
    assert (root / "system" / "state.md").read_text().endswith("mine\n")
    assert git(root, "log", "-1", "--format=%s").strip() == "fix(memory): restore missing layout files"
    assert_clean(root)


def test_a_failed_init_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(root):
        raise Refused("hooks could not be installed")

    monkeypatch.setattr("souveraine.laws.install.install", broken)
    target = tmp_path / "new"
    with pytest.raises(Refused):
        init(target)
    assert not target.exists()


def test_init_is_quiet_on_success_and_ends_with_the_smoke_test(tmp_path):
    done = souveraine("init", str(tmp_path / "m"), "--identity", "ada")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    data = json.loads(souveraine("--memory", str(tmp_path / "m"), "status", "--json").stdout)
    assert data["identity"] == "ada" and data["phase"] == "idle"
    told = souveraine("init", str(tmp_path / "n"), "--verbose")
    assert told.stdout == "" and told.stderr.splitlines()[1] == (
        "smoke test passed: triage routed 'Where are we?' to STATUS; the state answers: Idle: no unit of work is under way.")
    verdict = json.loads(souveraine("init", str(tmp_path / "o"), "--json").stdout)["smoke_test"]
    assert verdict == {"ok": True, "query": "Where are we?", "category": "STATUS", "reason": verdict["reason"],
                       "state": {"phase": "idle", "unit": "", "files_touched": [], "retries": 0},
                       "answer": "Idle: no unit of work is under way.", "problems": []}


def test_a_failed_smoke_test_says_what_failed_and_keeps_the_memory(tmp_path, runner, monkeypatch):
    from souveraine.cli import cli
    from souveraine.forks import triage

    monkeypatch.setattr(triage, "classify", lambda text: triage.Triage("WORK", "starts with an action"))
    done = runner.invoke(cli, ["init", str(tmp_path / "m")])
    assert done.exit_code == 1
    assert done.stderr.strip() == (f"souveraine: the memory at {tmp_path / 'm'} is made, but its smoke test failed: "
                                   "triage routed 'Where are we?' to WORK, not STATUS (starts with an action)")
    assert (tmp_path / "m" / "souveraine.toml").is_file()
    git(tmp_path / "m", "rm", "-q", ".skills/triage/SKILL.md")
    git(tmp_path / "m", "commit", "-qm", "fix(memory): the triage skill goes")
    monkeypatch.undo()
    again = runner.invoke(cli, ["init", str(tmp_path / "m")])
    assert again.exit_code == 1 and ".skills/triage/SKILL.md is missing" in again.stderr
    assert runner.invoke(cli, ["init", str(tmp_path / "m"), "--force"]).exit_code == 0


def test_bad_identity_handle_is_a_usage_error(tmp_path):
    done = souveraine("init", str(tmp_path / "m"), "--identity", "Bad Name!")
    assert done.returncode == 2
    assert done.stderr.startswith("souveraine: 'Bad Name!' is not a valid identity handle")
    assert not (tmp_path / "m").exists()


def test_two_commands_at_once_both_succeed_and_fsck_is_clean(memory):
    errors = []

    def write(n):
        try:
            with Memory(memory.root).change(f"feat(memory): note {n}") as change:
                change.write(f"memories/note-{n}.md", f"---\ndescription: note {n}\n---\nnote {n}\n")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(git(memory.root, "log", "--format=%s").splitlines()) == 5
    subprocess.run(["git", "-C", str(memory.root), "fsck", "--strict"], check=True, capture_output=True)
    assert_clean(memory.root)


def test_concurrent_processes_serialize_on_the_lock(memory):
    script = (
        "import sys; from souveraine.store.memory import Memory\n"
        "m = Memory(sys.argv[1])\n"
        "with m.change('feat(memory): note ' + sys.argv[2]) as c:\n"
        "    c.write('memories/p' + sys.argv[2] + '.md', '---\\ndescription: p\\n---\\nx\\n')\n"
    )
    import sys

    from tests.support import ROOT

    procs = [subprocess.Popen([sys.executable, "-c", script, str(memory.root), str(n)], cwd=ROOT) for n in range(3)]
    assert [p.wait() for p in procs] == [0, 0, 0]
    subprocess.run(["git", "-C", str(memory.root), "fsck", "--strict"], check=True, capture_output=True)
    assert_clean(memory.root)
