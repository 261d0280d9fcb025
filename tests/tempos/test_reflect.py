import json
import re

import pytest

from souveraine.identity.memories import remember
from souveraine.store import journal
from souveraine.tempos import reflect, vocabulary
from tests.inference.fake_model import FakeModel, answer, closed_port_base
from tests.support import assert_clean, git
from tests.tempos.conversation import configure, copy_of, prebuilt, say

EARLIER = [
    ("user", "Ottoline wrote from Kyoto about the garden."),
    ("assistant", "Kyoto in autumn must be lovely. What did Ottoline plant?"),
]
WINDOW = [
    ("user", "I met Marguerite Duras at the ledger meeting. Ottoline came too."),
    ("assistant", "How did the ledger meeting go with Marguerite?"),
    ("user", "Badly! I am WORRIED we will lose the ledger again, it is a disaster!"),
    ("assistant", "The ledger is safe in git. Bertrand showed me Hokusai prints in Kyoto."),
    ("user", "We decided to keep the ledger in SQLite. I'm planning a trip to Zanzibar."),
    ("assistant", "Zanzibar sounds good. I'll draft the ledger schema for SQLite by Friday."),
]


def witnessed(memory, monkeypatch):
    """An earlier day, a person note, a first witness; then a window with a note remembered in it."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-28T18:00:00")
    say(memory, "2026-11-28T10:00:00", EARLIER)
    with memory.change("feat(memory): a person") as change:
        change.write("people/bertrand.md", "---\ntype: person\n---\n# Bertrand Russell\n\nA philosopher.\n")
    first = reflect.run(memory, force=True)
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    blocks = say(memory, "2026-11-30T14:00:00", WINDOW[:4])
    remember(memory, "Zanzibar in March, with the whole family.")
    blocks += say(memory, "2026-11-30T14:10:00", WINDOW[4:])
    memory.first, memory.blocks = first, blocks


@pytest.fixture(scope="module")
def conversation(tmp_path_factory):
    return prebuilt(tmp_path_factory, witnessed)


@pytest.fixture
def talked(conversation, tmp_path, monkeypatch):
    """A copy of the conversation, its clock just after the last turn."""
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    copy = copy_of(conversation, tmp_path)
    copy.first, copy.blocks = conversation.first, conversation.blocks
    return copy


def test_the_witness_entry_holds_four_elements_citing_the_turns(talked):
    memory, blocks = talked, talked.blocks
    result = reflect.run(memory, force=True)
    assert result["reflected"] and result["turns"] == 6 and result["method"] == "extractive"
    assert result["path"] == "journal/2026/11/2026-11-30.md"
    [entry] = [t for t in journal.read_day(memory.root, result["path"]) if t.role == "reflection"]
    assert entry.block_id == result["block_id"] and entry.at.isoformat() == "2026-11-30T15:00:00"
    sections = re.split(r"\n\*\*The (Fold|Chain|Flame|Anchor)\*\*", entry.text)
    assert sections[1::2] == ["Fold", "Chain", "Flame", "Anchor"]
    cited = set(re.findall(r"\[\[journal/2026/11/2026-11-30#\^([a-z0-9-]+)\|", entry.text))
    assert cited and cited <= set(blocks)
    for body in sections[2::2]:
        assert "[[journal/2026/11/2026-11-30#^" in body
    assert result["fold"][0].startswith("“I am WORRIED we will lose the ledger again, it is a disaster!”, said the user")
    assert blocks[2] in result["fold"][0]
    assert result["chain"][0].startswith("*ledger*: ") and blocks[0] in result["chain"][0] and blocks[1] in result["chain"][0]
    assert result["anchor"][0].startswith("*ledger*, from ") or result["anchor"][0].startswith("*Kyoto*, from ")
    assert_clean(memory.root)
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "chore(reflect): witness 6 turns through 2026-11-30 14:11"


def test_the_flame_finds_exactly_the_new_names(talked):
    result = reflect.run(talked, force=True)
    # Ottoline and Kyoto were in the journal, Bertrand in a note, before the last witness;
    # Zanzibar's note was written during the conversation, so Zanzibar is new.
    assert result["flame"] == ["Marguerite Duras", "Hokusai", "SQLite", "Zanzibar"]
    text = talked.read_text(result["path"])
    assert f"- *Hokusai* ([[journal/2026/11/2026-11-30#^{talked.blocks[3]}|2026-11-30 14:03]])" in text


def test_the_vocabulary_cache_is_rebuilt_from_the_files_to_the_same_words(talked):
    turns, last = reflect.window(talked)
    assert last.block_id == talked.first["block_id"] and len(turns) == 6
    incremental = vocabulary.held_before(talked, last)
    (talked.cache / vocabulary.CACHE).unlink()
    rebuilt = vocabulary.held_before(talked, last)
    assert incremental == rebuilt and {"ottoline", "kyoto", "bertrand", "russell"} <= rebuilt
    assert "zanzibar" not in rebuilt and "marguerite" not in rebuilt
    assert json.loads((talked.cache / vocabulary.CACHE).read_text())["witness"] == f"{last.path}#^{last.block_id}"


def test_a_second_witness_extends_the_cache_by_one_window(talked, monkeypatch):
    reflect.run(talked, force=True)
    say(talked, "2026-11-30T16:00:00", [("user", "Marguerite and Hokusai again, and now Quetzalcoatl.")])
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T16:30:00")
    assert reflect.run(talked, force=True)["flame"] == ["Quetzalcoatl"]
    _, last = reflect.window(talked)
    cached = vocabulary.held_before(talked, last)
    (talked.cache / vocabulary.CACHE).unlink()
    assert vocabulary.held_before(talked, last) == cached


def test_due_every_message_interval(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    configure(memory, "reflection", message_interval=4)
    say(memory, "2026-11-30T14:00:00", WINDOW[:3])
    head = git(memory.root, "rev-parse", "HEAD")
    assert not reflect.due(memory)
    assert reflect.run(memory) == {"reflected": False, "messages": 3,
                                   "reason": "not due: 3 of 4 messages since the last witness"}
    assert git(memory.root, "rev-parse", "HEAD") == head
    say(memory, "2026-11-30T14:05:00", WINDOW[3:4])
    assert reflect.due(memory)
    assert reflect.run(memory)["reflected"]
    assert not reflect.due(memory)
    assert reflect.run(memory, force=True) == {"reflected": False, "messages": 0,
                                               "reason": "nothing to witness: no turns since the last witness"}


def test_disabled_reflection_does_nothing_even_forced(memory, monkeypatch, invoke):
    configure(memory, "reflection", enabled=False, message_interval=1)
    say(memory, "2026-11-30T14:00:00", WINDOW)
    head = git(memory.root, "rev-parse", "HEAD")
    assert not reflect.due(memory)
    assert reflect.run(memory, force=True) == {
        "reflected": False, "reason": "reflection is off ([reflection] enabled = false in souveraine.toml)"}
    result = invoke("reflect", "--force")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == "reflection is off ([reflection] enabled = false in souveraine.toml)\n"
    assert git(memory.root, "rev-parse", "HEAD") == head


def test_inside_a_callers_change_it_adds_to_that_commit(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", WINDOW)
    with memory.change("chore(journal): persist a turn and witness") as change:
        result = reflect.run(memory, force=True, change=change)
    assert result["reflected"] and "commit" not in result
    assert git(memory.root, "log", "-1", "--format=%s", "--name-only").split() == [
        "chore(journal):", "persist", "a", "turn", "and", "witness", "journal/2026/11/2026-11-30.md"]
    assert_clean(memory.root)


def test_the_cli_reports_in_text_and_json(memory, monkeypatch, invoke):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", WINDOW[:2])
    quiet = invoke("reflect")
    assert quiet.exit_code == 0 and quiet.stdout == ""
    assert quiet.stderr == "not due: 2 of 25 messages since the last witness\n"
    done = invoke("reflect", "--force", "--json")
    assert done.exit_code == 0
    data = json.loads(done.stdout)
    assert data["reflected"] and data["flame"] == ["Marguerite Duras", "Ottoline"]
    assert data["link"] == f"[[journal/2026/11/2026-11-30#^{data['block_id']}]]"
    assert_clean(memory.root)


MODEL_ANSWER = """**The Fold** — where intensity vibrated:
- The user was worried about losing the ledger again ^{b2}
- A made-up id points nowhere ^{bogus}

## The Chain
1. The ledger meeting passed from the user to the assistant ^{b0} ^{b1}

Anchor: the ledger meeting held ^{b0} ^{b1}
"""


def test_a_configured_model_writes_the_fold_chain_and_anchor_through_the_guard(memory, monkeypatch, invoke):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    blocks = say(memory, "2026-11-30T14:00:00", WINDOW[:3])
    with FakeModel([answer(MODEL_ANSWER.format(b0=blocks[0], b1=blocks[1], b2=blocks[2], bogus="t000000u0000"))]) as server:
        configure(memory, "inference", endpoint=server.base, model="tiny", reflection_model="witness")
        result = reflect.run(memory, force=True)
    [request] = server.requests
    assert request["json"]["model"] == "witness" and request["json"]["max_tokens"] == 600
    assert request["json"]["messages"][0]["content"] == reflect.SYSTEM_PROMPT
    assert f"[^{blocks[2]} · 2026-11-30 14:02 · user] Badly!" in request["json"]["messages"][1]["content"]
    assert result["method"] == "witness" and "refused" not in result
    assert "_Witnessed by the model witness; a witness does not correct._" in memory.read_text(result["path"])
    link = lambda n: f"[[journal/2026/11/2026-11-30#^{blocks[n]}|2026-11-30 14:0{n}]]"  # noqa: E731
    assert result["fold"] == [f"The user was worried about losing the ledger again {link(2)}"]
    assert result["chain"] == [f"The ledger meeting passed from the user to the assistant {link(0)} {link(1)}"]
    assert result["anchor"] == [f"the ledger meeting held {link(0)} {link(1)}"]
    assert "t000000u0000" not in memory.read_text(result["path"])
    assert result["flame"] == ["Marguerite Duras", "Ottoline"]
    assert_clean(memory.root)


def test_a_model_that_is_down_fails_loudly_and_writes_nothing(memory, monkeypatch, invoke):
    say(memory, "2026-11-30T14:00:00", WINDOW)
    base = closed_port_base()
    configure(memory, "inference", endpoint=base, model="tiny", retries=0, timeout=0.5)
    before = memory.read_text("journal/2026/11/2026-11-30.md")
    result = invoke("reflect", "--force")
    assert result.exit_code == 1
    assert result.stderr == (f"souveraine: the model endpoint {base} is down (Connection refused; 1 try); start the "
                             "server, or set [inference] endpoint = \"\" (or pass --extractive) to use the extractive method\n")
    assert memory.read_text("journal/2026/11/2026-11-30.md") == before
    assert invoke("reflect", "--force", "--extractive").exit_code == 0
    assert_clean(memory.root)


def test_a_model_answer_the_guard_refuses_gives_the_extractive_witness_and_one_line_of_why(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", WINDOW[:2])
    with FakeModel([answer("Sure! Here is a poem about ledgers.")]) as server:
        configure(memory, "inference", endpoint=server.base, model="tiny")
        result = reflect.run(memory, force=True)
    assert result["reflected"] and result["method"] == "extractive"
    assert result["refused"] == ("The witness model tiny left the fold, chain, anchor without a line the guard keeps "
                                 "(0 lines in all; no such section); the extractive witness was kept.")
    assert "_Witnessed by the extractive method" in memory.read_text(result["path"])
    voice = memory.read_text("system/metacognition/subconscious.md")
    assert voice.count("The witness model tiny") == 1
    assert_clean(memory.root)


def test_a_reason_the_guard_gives_in_every_section_is_said_once(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T15:00:00")
    say(memory, "2026-11-30T14:00:00", WINDOW[:2])
    uncited = "Fold\n- The ledger meeting went well.\nChain\n- Marguerite came.\nAnchor\n- Ledger."
    with FakeModel([answer(uncited)]) as server:
        configure(memory, "inference", endpoint=server.base, model="tiny")
        result = reflect.run(memory, force=True)
    assert result["method"] == "extractive"
    assert "(3 lines in all; 3 citing no turn)" in result["refused"]


def test_model_check_reports_the_endpoint(memory, invoke):
    plain = invoke("model")
    assert plain.exit_code == 0
    assert plain.stdout == "reflection  no endpoint: the extractive method\narchivist   no endpoint: the extractive method\n"
    base = closed_port_base()
    configure(memory, "inference", endpoint=base, model="tiny", retries=0)
    down = invoke("model", "check", "--json")
    assert down.exit_code == 1
    assert [row["code"] for row in json.loads(down.stdout)] == ["inference_down", "inference_down"]
    with FakeModel([answer("ready")]) as server:
        configure(memory, "inference", endpoint=server.base)
        up = invoke("model", "check")
    assert up.exit_code == 0 and up.stdout.startswith(f"reflection  tiny at {server.base}: answered in ")
