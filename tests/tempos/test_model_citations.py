"""A model's citation written its own way — ``[^id · note]``, ``(^id, ^id)`` — is read as a
citation and leaves nothing of itself in the line the memory keeps."""

from souveraine.inference import guard
from souveraine.store import notes
from souveraine.tempos import archive
from tests.inference.fake_model import FakeModel, answer
from tests.support import assert_clean
from tests.tempos.conversation import configure, say

TALK = [
    ("user", "Inês's new phone number is +351 912 345 678."),
    ("assistant", "Saved Inês's number: +351 912 345 678."),
    ("user", "We decided to host the orchard archive on Hetzner, not at home."),
    ("assistant", "Hosting on Hetzner, then."),
]


def test_a_bracketed_citation_with_a_note_leaves_no_bracket_behind():
    window = {"t1": "Inês's new phone number is +351 912 345 678.", "t2": "Saved Inês's number."}
    for line in ("- Inês's phone number is +351 912 345 678 [^t1 · note]",
                 "- Inês's phone number is +351 912 345 678 (^t1, ^t2)",
                 "- Inês's phone number is +351 912 345 678 [^t1; see ^t2]"):
        reason, text, ids = guard.judge(line, window)
        assert (reason, text) == (None, "Inês's phone number is +351 912 345 678"), line
        assert ids[0] == "t1"


def test_the_committed_essence_holds_the_line_without_the_models_citation_marks(memory, monkeypatch):
    monkeypatch.setenv("SOUVERAINE_NOW", "2026-11-30T20:00:00")
    blocks = say(memory, "2026-11-30T09:00:00", TALK)
    essence = (f"## Numbers\n- Inês's phone number is +351 912 345 678 [^{blocks[0]} · from the user]\n"
               f"## Decisions\n- The orchard archive is hosted on Hetzner [^{blocks[2]} · decision]\n")
    with FakeModel([answer(essence)]) as server:
        configure(memory, "inference", endpoint=server.base, model="small")
        result = archive.run(memory, force=True)
    body = notes.read(memory.root / result["path"]).body
    assert result["method"] == "small"
    assert f"- Inês's phone number is +351 912 345 678 ([[journal/2026/11/2026-11-30#^{blocks[0]}]])" in body
    assert "· from the user" not in body and "[ ·" not in body and "[[[" not in body
    assert_clean(memory.root)
