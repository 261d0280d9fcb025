"""A small run of bench/quality_recall.py: planted facts must stay findable."""

from bench.conversations import generate, ingest
from bench.quality_recall import PLAIN, SHIPPED, measure
from souveraine.recall import index


def test_planted_turns_are_found_in_the_first_ten(memory, monkeypatch):
    conversation = generate(sessions=16, turns_per_session=24, span_days=200, seed=3)
    monkeypatch.setenv("SOUVERAINE_NOW", f"{conversation.end.isoformat()}T23:00:00+00:00")
    ingest(memory, conversation)
    shipped = measure(memory, conversation, SHIPPED)
    index.rebuild(memory, PLAIN.options)
    plain = measure(memory, conversation, PLAIN)
    assert shipped["questions"] >= 10
    assert shipped["recall@10"] >= 0.8, shipped
    assert shipped["recall@5"] >= plain["recall@5"], (shipped, plain)
