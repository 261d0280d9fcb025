import json
import shutil
from datetime import date, datetime
from pathlib import Path

import pytest

from souveraine.store import journal, notes, spool
from souveraine.tempos import counters, ledger
from souveraine.tempos.persist import persist
from souveraine.tempos.transcripts import Exchange
from tests.support import assert_clean, git

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claude-code"
DAY = "journal/2026/11/2026-11-30.md"


@pytest.fixture
def at_1432(monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:05+00:00")


def log(memory) -> list[str]:
    return git(memory.root, "log", "--format=%s").splitlines()


def test_persist_appends_both_turns_in_one_commit(invoke, memory, at_1432):
    done = invoke("persist", "--user", "What did I say about that book?", "--assistant", "That it was long.",
                  "--session", "abc123")
    assert (done.exit_code, done.output) == (0, "")
    text = (memory.root / DAY).read_text()
    assert text.startswith(journal.header(date(2026, 11, 30)))
    at = datetime(2026, 11, 30, 14, 32, 5)
    user_id = journal.block_id(at, "user", "What did I say about that book?", "abc123")
    answer_id = journal.block_id(at, "assistant", "That it was long.", "abc123")
    assert text.endswith(
        "# Monday 30 November 2026\n\n## 14:32:05 · user · session `abc123`\n\nWhat did I say about that book?\n\n"
        f"^{user_id}\n\n## 14:32:05 · assistant · session `abc123`\n\nThat it was long.\n\n^{answer_id}\n")
    assert log(memory)[0] == "chore(journal): persist 2 turns at 14:32 of session abc123"
    assert len(log(memory)) == 2
    assert_clean(memory.root)


def test_persist_reads_json_on_stdin_and_reports_json(invoke, memory, at_1432):
    exchange = {"user": "Hello", "assistant": "Hi! How can I help?", "session": "s1", "at": "2026-11-30T09:15:00+00:00",
                "tool_calls": [{"name": "Read", "input": {"file_path": "x"}}]}
    done = invoke("persist", "--json", input=json.dumps(exchange))
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert [t["role"] for t in data["turns"]] == ["user", "tool", "assistant"]
    assert data["turns"][0]["link"].startswith("[[journal/2026/11/2026-11-30#^t091500u")
    assert "## 09:15:00 · tool · session `s1`\n\n- Read `x`\n" in (memory.root / DAY).read_text()
    assert (data["since_reflection"], data["reflection_due"], data["archive_due"]) == (2, False, False)
    assert data["commit"] == git(memory.root, "rev-parse", "HEAD").strip()
    assert "## 09:15:00 · assistant · session `s1`\n\nHi! How can I help?\n" in (memory.root / DAY).read_text()


def test_the_same_exchange_twice_is_journaled_once(invoke, memory, at_1432):
    args = ("persist", "--user", "Same words", "--assistant", "Same answer", "--at", "2026-11-30T14:00:00+00:00", "--json")
    first = json.loads(invoke(*args).output)
    again = json.loads(invoke(*args).output)
    assert (first["duplicate"], again["duplicate"], again["commit"]) == (False, True, None)
    assert len(journal.read_day(memory.root, DAY)) == 2
    assert_clean(memory.root)


def test_an_unkept_save_promise_is_kept_by_the_subconscious(memory, at_1432):
    result = persist(memory, Exchange(user="My daughter Mia was born on 2 May.", assistant="Lovely. I'll remember that."))
    [promise] = result.promises
    assert (promise["kind"], promise["status"]) == ("save", "saved")
    note = notes.read(memory.root / promise["memory"]["path"])
    assert note.body == "The user's daughter Mia was born on 2 May (2026-05-02).\n"
    user_turn = result.turns[0]
    assert note["source"] == user_turn["link"] == f"[[journal/2026/11/2026-11-30#^{user_turn['block_id']}]]"
    changed = git(memory.root, "show", "--name-only", "--format=", "HEAD").split()
    assert promise["memory"]["path"] in changed and DAY in changed
    voice = (memory.root / "system/metacognition/subconscious.md").read_text()
    assert f"[2026-11-30 14:32] [URGENCY: low] — Kept the promise \"I'll remember that.\": saved it as [[{promise['memory']['path'][:-3]}]]." in voice
    assert ledger.entries(memory, "commitments") == []
    assert_clean(memory.root)


def test_a_save_promise_with_its_own_words_saves_those_words(memory, at_1432):
    result = persist(memory, Exchange(user="Note this down.", assistant="Got it, I'll remember that your sister is called Lea."))
    note = notes.read(memory.root / result.promises[0]["memory"]["path"])
    assert note.body == "The user's sister is called Lea.\n"
    assert note["source"] == result.turns[1]["link"]


def test_a_save_promise_kept_by_a_tool_call_is_not_saved_twice(memory, at_1432):
    result = persist(memory, Exchange(user="Paul is allergic to nuts.", assistant="I'll remember that.",
                                      tool_calls=("souveraine remember 'Paul is allergic to nuts'",)))
    assert result.promises[0]["status"] == "kept"
    assert not list((memory.root / "memories").rglob("*.md"))


def test_other_promises_open_in_the_ledger_and_close_when_kept(memory, monkeypatch, at_1432):
    opened = persist(memory, Exchange(user="Can you commit the config?", assistant="I'll commit the config change later today."))
    [promise] = opened.promises
    assert promise["status"] == "open"
    [entry] = ledger.entries(memory, "commitments", open_only=True)
    assert entry.source == opened.turns[1]["link"].replace("]]", "|2026-11-30 14:32]]")
    assert opened.inbox == [{"id": "i" + entry.id[1:], "at": "2026-11-30T14:32+00:00", "urgency": "high",
                             "text": "Unfulfilled promise: \"I'll commit the config change later today.\" from 14:32"}]
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:02:00+00:00")
    kept = persist(memory, Exchange(user="Done?", assistant="Yes: committed the config change as 1a2b3c."))
    assert [c["id"] for c in kept.closed] == [entry.id]
    [closed] = ledger.entries(memory, "commitments")
    assert (closed.status, closed.how) == ("closed", "closed by")
    assert closed.ended.startswith(f"[[journal/2026/11/2026-11-30#^{kept.turns[1]['block_id']}")
    assert "- [x] closed · " in (memory.root / "ledger/commitments.md").read_text()
    assert "i" + entry.id[1:] not in (memory.root / "inbox/pending.md").read_text(), "a kept promise needs no reminder"
    assert_clean(memory.root)


def test_no_commit_keeps_the_exchange_in_the_spool_and_the_next_persist_commits_it(invoke, memory, at_1432):
    head = git(memory.root, "rev-parse", "HEAD")
    done = invoke("persist", "--user", "one", "--assistant", "I'll commit that.", "--no-commit", "--json")
    data = json.loads(done.output)
    assert (data["commit"], data["kept"], data["waiting"]) == (None, True, 1)
    assert git(memory.root, "rev-parse", "HEAD") == head
    assert_clean(memory.root)
    [entry] = spool.entries(memory)
    assert entry.record["exchange"]["user"] == "one" and entry.record["exchange"]["at"] == "2026-11-30T14:32:05+00:00"
    quiet = invoke("persist", "--user", "two", "--assistant", "ok", "--no-commit")
    assert (quiet.exit_code, quiet.output) == (0, "")
    assert git(memory.root, "rev-parse", "HEAD") == head
    invoke("persist", "--user", "three", "--assistant", "fine")
    assert_clean(memory.root)
    assert spool.entries(memory) == []
    assert "ledger/commitments.md" in git(memory.root, "show", "--name-only", "--format=", "HEAD")
    assert log(memory)[0] == "chore(journal): persist 6 turns at 14:32 (1 promise, 3 exchanges)"
    assert [t.text for t in journal.read_day(memory.root, DAY)] == ["one", "I'll commit that.", "two", "ok", "three", "fine"]


def test_flush_commits_what_waits(invoke, memory, at_1432):
    invoke("persist", "--user", "one", "--assistant", "two", "--no-commit")
    done = invoke("persist", "--flush", "--json")
    assert {k: v for k, v in json.loads(done.output).items() if k != "commit"} == {
        "turns": 2, "kept": False, "reason": "", "waiting": 0}
    assert log(memory)[0] == "chore(journal): persist 2 turns at 14:32"
    assert_clean(memory.root)


def test_an_older_no_commit_left_written_is_committed_by_the_next_persist(invoke, memory, at_1432):
    (memory.root / "people" / "lea.md").write_text("---\ndescription: Lea.\n---\n# Lea\n")
    memory.cache.mkdir(exist_ok=True)
    (memory.cache / "uncommitted.json").write_text(json.dumps(["people/lea.md"]))
    invoke("persist", "--user", "hi", "--assistant", "hello")
    assert "people/lea.md" in git(memory.root, "show", "--name-only", "--format=", "HEAD")
    assert not (memory.cache / "uncommitted.json").exists()
    assert_clean(memory.root)


def test_n1_disabled_keeps_only_the_journal(memory, at_1432):
    text = (memory.root / "souveraine.toml").read_text().replace("n1_enabled = true", "n1_enabled = false")
    (memory.root / "souveraine.toml").write_text(text)
    git(memory.root, "commit", "-qam", "chore(config): minimal mode")
    result = persist(memory, Exchange(user="Remember: Lea.", assistant="I'll remember that. I'll commit it too."))
    assert (result.n1, result.promises, result.thoughts, result.inbox) == (False, [], [], [])
    assert git(memory.root, "show", "--name-only", "--format=", "HEAD").split() == [DAY]


def test_inbox_disabled_queues_nothing_but_keeps_the_ledger(memory, at_1432):
    text = (memory.root / "souveraine.toml").read_text().replace("inbox_enabled = true", "inbox_enabled = false")
    (memory.root / "souveraine.toml").write_text(text)
    git(memory.root, "commit", "-qam", "chore(config): no inbox")
    pending = (memory.root / "inbox/pending.md").read_text()
    result = persist(memory, Exchange(user="x", assistant="I'll commit that."))
    assert result.inbox == [] and result.promises[0]["status"] == "open"
    assert (memory.root / "inbox/pending.md").read_text() == pending


def test_reflection_and_archive_run_after_the_turns_commit_each_its_own(memory, at_1432):
    text = (memory.root / "souveraine.toml").read_text()
    text = text.replace("message_interval = 25", "message_interval = 4").replace("interval = 100", "interval = 6")
    (memory.root / "souveraine.toml").write_text(text.replace('tempos = "detached"', 'tempos = "inline"'))
    git(memory.root, "commit", "-qam", "chore(config): short tempos")
    results = [persist(memory, Exchange(user=f"q{n}", assistant=f"a{n}")) for n in range(4)]
    assert [(r.since_reflection, r.reflection_due, r.archive_due) for r in results] == [
        (2, False, False), (4, True, False), (2, False, True), (4, True, False)]
    assert [{k: v["status"] for k, v in r.ran.items()} for r in results] == [
        {}, {"reflection": "done"}, {"archive": "done"}, {"reflection": "done"}]
    # The turn's commit holds the turn alone; each tempo is a commit of its own, after it.
    subjects = log(memory)
    assert subjects[:6] == ["chore(reflect): witness 4 turns through 2026-11-30 14:32",
                            "chore(journal): persist 2 turns at 14:32",
                            "chore(archive): synthesize 6 turns through 2026-11-30",
                            "chore(journal): persist 2 turns at 14:32",
                            "chore(reflect): witness 4 turns through 2026-11-30 14:32",
                            "chore(journal): persist 2 turns at 14:32"]
    assert "· reflection" not in git(memory.root, "show", results[1].commit, "--", DAY)
    assert "system/synthesized/" in git(memory.root, "show", "--name-only", "--format=", "HEAD~2")
    voice = (memory.root / "system/metacognition/subconscious.md").read_text()
    assert "[URGENCY: low] — Reflection is due: 4 messages since the last." in voice
    assert_clean(memory.root)

    after = persist(memory, Exchange(user="after the synthesis", assistant="a"))
    assert (after.since_reflection, after.reflection_due, after.since_archive) == (2, False, 4)


def test_due_by_pressure_as_status_says_and_by_the_models_own_interval(memory, invoke, at_1432):
    text = (memory.root / "souveraine.toml").read_text().replace('tempos = "detached"', 'tempos = "scheduler"')
    model = "[models.default]\ncontext_limit = 200000\narchivist_threshold = 0.7\narchivist_interval = 100\n"
    assert model in text
    (memory.root / "souveraine.toml").write_text(text.replace(model, model.replace("= 100\n", "= 3\n")))
    git(memory.root, "commit", "-qam", "chore(config): a small model")
    first = persist(memory, Exchange(user="q", assistant="a"))
    status = json.loads(invoke("status", "--json").stdout)
    assert (first.archive_due, status["pressure"]["due"]) == (False, False)
    second = persist(memory, Exchange(user="q2", assistant="a2"))
    status = json.loads(invoke("status", "--json").stdout)
    assert (second.since_archive, second.archive_due, status["pressure"]["due"]) == (4, True, True)
    assert second.ran == {"archive": {"status": "left to the scheduler"}}
    (memory.root / "souveraine.toml").write_text(text.replace(model, model.replace("200000", "200")))
    git(memory.root, "commit", "-qam", "chore(config): a tiny context")
    third = persist(memory, Exchange(user="q3", assistant="a3"))
    status = json.loads(invoke("status", "--json").stdout)
    assert status["pressure"]["over"] and third.archive_due and status["pressure"]["due"]


def test_the_counters_read_only_what_was_appended(memory, monkeypatch, at_1432):
    old = date(2026, 1, 5)
    with memory.change("chore(journal): an old day") as change:
        change.write(journal.day_path(old), journal.header(old) + journal.render(
            datetime(2026, 1, 5, 9), "user", "long ago", None, "t090000u0000"))
    persist(memory, Exchange(user="first", assistant="answer"))
    parsed = []
    real = journal.parse
    monkeypatch.setattr(journal, "parse", lambda text, path: parsed.append(path) or real(text, path))
    result = persist(memory, Exchange(user="second", assistant="answer"))
    assert set(parsed) <= {DAY} and result.since_reflection == 5
    (memory.cache / counters.CACHE).unlink()
    assert persist(memory, Exchange(user="third", assistant="answer")).since_reflection == 7


def test_claude_code_stop_hook_takes_the_last_exchange(invoke, memory, tmp_path, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T14:32:14+00:00")
    transcript = tmp_path / "5d7f2c1e.jsonl"
    shutil.copy(FIXTURES / "transcript.jsonl", transcript)
    payload = json.loads((FIXTURES / "stop.json").read_text())
    payload["transcript_path"] = str(transcript)
    done = invoke("persist", "--claude-code", "--json", input=json.dumps(payload))
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    user, tools, assistant = journal.read_day(memory.root, DAY)
    assert (user.role, user.session, f"{user.at:%H:%M:%S}") == ("user", payload["session_id"], "14:32:05")
    assert tools.text == ("- Edit `config/staging.toml`\n"
                          "- Bash `git commit -am 'chore(config): staging moved to 10.0.0.5'`")
    assert user.text == "The staging server moved to 10.0.0.5. Please update config/staging.toml and commit the change."
    assert assistant.text == payload["last_assistant_message"]
    [promise] = data["promises"]
    assert (promise["kind"], promise["status"]) == ("save", "saved")
    assert notes.read(memory.root / promise["memory"]["path"]).body == "The staging server is at 10.0.0.5.\n"
    assert "I'll save that" not in (memory.root / DAY).read_text(), "a subagent's lines are not the conversation"
    assert_clean(memory.root)


def test_claude_code_without_last_message_reads_the_answer_from_the_transcript(memory, tmp_path, monkeypatch):
    from souveraine.tempos.transcripts import from_claude_code

    payload = json.loads((FIXTURES / "stop.json").read_text())
    payload["transcript_path"] = str(FIXTURES / "transcript.jsonl")
    del payload["last_assistant_message"]
    exchange = from_claude_code(json.dumps(payload))
    assert exchange.assistant.startswith("I'll update the file and commit the change.\n\nDone: config/staging.toml")
    assert [call.split()[0] for call in exchange.tool_calls] == ["Edit", "Bash"]
    assert exchange.at == datetime.fromisoformat("2026-11-30T14:32:13.015+00:00")
    result = persist(memory, exchange)
    assert {p["kind"]: p["status"] for p in result.promises} == {"do": "kept", "save": "saved"}


BAD = [
    (("persist", "--user", "hi", "--assistant", "   "), None, 2, "the assistant's text is empty"),
    (("persist", "--user", "", "--assistant", "ok"), None, 2, "the user's text is empty"),
    (("persist", "--user", "hi"), None, 2, "--user needs --assistant TEXT"),
    (("persist",), "", 2, "stdin is empty; give a JSON object"),
    (("persist",), "{\"user\": \"hi\", \"assistant\": ", 2, "stdin is not valid JSON"),
    (("persist",), "[1, 2]", 2, "stdin must be a JSON object, not list"),
    (("persist",), "{\"user\": \"hi\"}", 2, "the assistant's text is empty"),
    (("persist",), "{\"assistant\": \"x\", \"at\": \"yesterday\"}", 2, "'at' is not an ISO 8601 time"),
    (("persist",), "{\"assistant\": \"x\", \"mood\": 1}", 2, "unknown field(s) mood in the JSON"),
    (("persist", "--claude-code"), "{not json", 1, "the Claude Code payload is not valid JSON"),
    (("persist", "--claude-code"), "{\"session_id\": \"s\", \"hook_event_name\": \"Stop\"}", 1,
     "the Claude Code payload has no transcript_path"),
    (("persist", "--claude-code"), "{\"transcript_path\": \"/nowhere/x.jsonl\", \"last_assistant_message\": \"hi\"}", 1,
     "the transcript /nowhere/x.jsonl does not exist; nothing was persisted"),
    (("persist", "--claude-code"), "{\"transcript_path\": \"/x.jsonl\", \"hook_event_name\": \"PreCompact\"}", 1,
     "persist --claude-code reads a Stop hook's payload, not PreCompact"),
]


def test_bad_input_is_refused_with_one_line_and_nothing_written(invoke, memory, at_1432):
    head = git(memory.root, "rev-parse", "HEAD")
    for args, stdin, code, message in BAD:
        done = invoke(*args, input=stdin)
        assert (done.exit_code, done.stderr[:len(message) + 12]) == (code, f"souveraine: {message}"), args
        assert done.stderr.count("\n") == 1
        assert git(memory.root, "rev-parse", "HEAD") == head
        assert not (memory.root / "journal" / "2026").exists()
        assert spool.entries(memory) == []
        assert_clean(memory.root)


def test_a_claude_code_transcript_with_no_prompt_yet_journals_the_answer_alone(memory, tmp_path, at_1432):
    from souveraine.tempos.transcripts import from_claude_code

    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"summary","summary":"x","leafUuid":"u"}\n{"type":"user","message":{"role":"user","con')
    exchange = from_claude_code(json.dumps({"transcript_path": str(transcript), "last_assistant_message": "Hello."}))
    assert (exchange.user, exchange.assistant) == (None, "Hello.")
    assert [t["role"] for t in persist(memory, exchange).turns] == ["assistant"]


def test_the_real_binary_under_a_stop_hook(memory, tmp_path):
    from tests.support import souveraine

    payload = json.loads((FIXTURES / "stop.json").read_text())
    payload["transcript_path"] = str(tmp_path / "gone.jsonl")
    done = souveraine("--memory", str(memory.root), "persist", "--claude-code", input=json.dumps(payload))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"souveraine: the transcript {tmp_path / 'gone.jsonl'} does not exist; nothing was persisted\n"
    shutil.copy(FIXTURES / "transcript.jsonl", tmp_path / "gone.jsonl")
    done = souveraine("--memory", str(memory.root), "persist", "--claude-code", input=json.dumps(payload))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert_clean(memory.root)


def test_a_person_named_gets_a_cited_line_in_their_note_in_the_same_commit(memory, at_1432):
    result = persist(memory, Exchange(user="As promised: I called Inês about the cake; she's in. Per [[people/alice]], fine.",
                                      assistant="Good. Then ask Tomás for the drill."))
    assert result.people == ["people/alice.md", "people/ines.md", "people/tomas.md"]
    [user, answer] = result.turns
    ines = memory.read_text("people/ines.md")
    assert f"- 2026-11-30: The user called Inês about the cake. {user['link']}" in ines
    assert f"- 2026-11-30, the agent: Then ask Tomás for the drill. {answer['link']}" in memory.read_text("people/tomas.md")
    assert "[[people/ines|Inês]]" in memory.read_text("people/_index.md")
    changed = git(memory.root, "show", "--name-only", "--format=", "HEAD").split()
    assert {"people/ines.md", "people/tomas.md", "people/alice.md", "people/_index.md"} <= set(changed)
    assert not memory.exists("people/as.md") and not memory.exists("people/per.md")
    assert_clean(memory.root)


def test_a_person_named_costs_no_walk_of_the_memory_nor_the_names_read_whole(memory, at_1432, monkeypatch):
    """Its cost is the change's: people/_index.md's links are resolved by the folders they name
    (links.Vault.near), the given names looked up by search (language.lexicon)."""
    from souveraine.care import links
    from souveraine.language import lexicon

    persist(memory, Exchange(user="Did Inês call?", assistant="Inês called at noon."))
    assert "[[people/ines|Inês]]" in memory.read_text("people/_index.md")

    def walk(*args, **kwargs):
        raise AssertionError("the whole memory walked")

    monkeypatch.setattr(links, "walk", walk)
    monkeypatch.setattr(lexicon, "_looked", 0)       # this process's earlier tests asked often
    lexicon._given.cache_clear()
    result = persist(memory, Exchange(user="Did Inês call back? And Tomás?", assistant="Inês called again; Tomás did not."))
    assert result.people == ["people/ines.md", "people/tomas.md"] and not result.kept
    assert lexicon._given.cache_info().currsize == 0
    assert_clean(memory.root)
