"""Records (souveraine/record.py) behave as the dataclasses they replace: same fields, defaults,
equality, hashing, repr, replace and asdict."""

import copy
import dataclasses
import pickle
from datetime import date

import pytest

from souveraine.recall import conversation, dates, diversity, index, query, rank, search, sources
from souveraine.record import Frozen
from souveraine.store import intent

# Each record, an instance of it, and the dataclass it was (fields with defaults as they were).
CASES = [
    (dates.Span(date(2024, 5, 1), None), dict(frozen=True), [("since", None), ("until", None)]),
    (dates.Reading("in May", dates.Span(), "no year", True), dict(frozen=True),
     [("phrase",), ("span",), ("note", ""), ("ambiguous", False)]),
    (dates.Found(dates.Span(), "words", ["in May"]), dict(frozen=True),
     [("span",), ("text",), ("phrases", list), ("readings", list)]),
    (query.Term(("deploy", "key"), True), dict(frozen=True), [("words",), ("prefix", False)]),
    (index.Options(context="none"), dict(frozen=True),
     [("tokenizer", "porter unicode61 remove_diacritics 2"), ("context", "neighbors")]),
    (index.Update("incremental", files=3, commit="abc"), {},
     [("mode",), ("files", 0), ("removed", 0), ("documents", 0), ("bytes", 0), ("seconds", 0.0), ("commit", None)]),
    (conversation.Turn(1, "journal/a.md", "s", "user", "turn"), {},
     [("id",), ("path",), ("session",), ("role",), ("kind",)]),
    (diversity.Candidate(4, 1.5, "g"), {}, [("id",), ("score",), ("group",), ("words", frozenset), ("vector", None)]),
    (rank.Plan(["t"], recent=9), {}, [("terms",), ("window", False), ("recent", 0), ("rare", list), ("dropped", list)]),
    (sources.Document("journal/a.md", "turn", "hello", block="t1"), {},
     [("path",), ("kind",), ("body",), ("block", ""), ("tier", ""), ("at", None), ("visibility", "public"),
      ("role", ""), ("session", ""), ("line", 0), ("title", ""), ("links", ""), ("source", "")]),
    (search.Hit("p.md", "b", "turn", "episodic", None, 1.0, "s", "[[p]]", context=[{"hit": True}]), {},
     [("path",), ("block",), ("kind",), ("tier",), ("date",), ("score",), ("snippet",), ("link",), ("role", ""),
      ("source", ""), ("context", None)]),
    (search.Result([], "t", dates.Span(), anchor="now"), {},
     [("hits",), ("text",), ("span",), ("phrases", list), ("update", None), ("readings", list), ("anchor", "")]),
    (intent.Left("/tmp/x", 12, []), {}, [("where",), ("pid",), ("paths",), ("spooled", list)]),
]


def twin(record, frozen_options: dict, fields: list[tuple]):
    """The dataclass the record was, and the same instance of it."""
    spec = []
    for name, *default in fields:
        if not default:
            spec.append((name, object))
        elif callable(default[0]) and default[0] in (list, frozenset):
            spec.append((name, object, dataclasses.field(default_factory=default[0])))
        else:
            spec.append((name, object, dataclasses.field(default=default[0])))
    cls = dataclasses.make_dataclass(type(record).__qualname__, spec, **frozen_options)
    cls.__qualname__ = type(record).__qualname__
    return cls, cls(**{name: getattr(record, name) for name, *_ in fields})


@pytest.mark.parametrize("record, options, fields", CASES, ids=[type(case[0]).__name__ for case in CASES])
def test_a_record_is_its_dataclass(record, options, fields):
    cls, same = twin(record, options, fields)
    assert record._fields == tuple(name for name, *_ in fields)
    assert repr(record) == repr(same)
    assert record._asdict() == {name: getattr(same, name) for name, *_ in fields}
    required = {name: getattr(record, name) for name, *default in fields if not default}
    assert type(record)(**required)._asdict() == {name: getattr(cls(**required), name) for name, *_ in fields}
    assert record == type(record)(**record._asdict()) == copy.deepcopy(record) == pickle.loads(pickle.dumps(record))
    assert record != same                       # another class: never equal, as between dataclasses
    name = fields[0][0]
    changed = record.replace(**{name: "other"})
    assert changed._asdict() == {**record._asdict(), name: "other"} and record != changed
    with pytest.raises(TypeError):
        record.replace(nonexistent=1)
    if options.get("frozen"):
        assert isinstance(record, Frozen)
        with pytest.raises(AttributeError):
            setattr(record, name, "x")
        if not any(isinstance(value, list) for value in record._asdict().values()):
            assert hash(record) == hash(type(record)(**record._asdict())) == hash(same)
    else:
        with pytest.raises(TypeError):
            hash(record)
        setattr(record, name, getattr(record, name))


def test_a_factory_default_is_new_for_each_record():
    one, two = rank.Plan([]), rank.Plan([])
    one.rare.append("x")
    assert two.rare == [] and rank.Ranking(0.0).weights is not rank.Ranking(0.0).weights


def test_ranking_defaults_are_its_class_attributes_and_replace_keeps_the_rest():
    ranking = rank.Ranking(1.0, diversity=0.6)
    assert rank.Ranking.answer_share == ranking.answer_share == 0.5 and rank.Ranking.diversity == 0.3
    assert ranking.weights == rank.COLUMN_WEIGHTS
    assert ranking.replace(answer_share=0.0) == rank.Ranking(1.0, diversity=0.6, answer_share=0.0)
    assert "diversity=0.6" in repr(ranking) and repr(ranking).startswith("Ranking(now=1.0, half_life_days=30.0,")
    with pytest.raises(AttributeError):
        ranking.now = 2.0


def test_hit_to_dict_copies_its_context_and_leaves_out_none():
    hit = search.Hit("p.md", "b", "turn", "episodic", None, 1.0, "s", "[[p]]", context=[{"hit": True}])
    data = hit.to_dict()
    data["context"][0]["hit"] = False
    assert hit.context == [{"hit": True}]
    assert "context" not in hit.replace(context=None).to_dict()
