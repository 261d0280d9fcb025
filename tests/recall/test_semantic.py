"""Sentence vectors in recall: used where asked or warm, with each real encoder installed (the
static one always: it comes with souveraine; MiniLM with the semantic extra)."""

import json

import pytest

from souveraine.errors import UsageError
from souveraine.recall import encoders, index, semantic
from souveraine.recall.search import recall
from tests.recall.conftest import APPRENTICES

needs_model = pytest.mark.skipif(not semantic.available(),
                                 reason=f"no sentence encoder is installed ({semantic.INSTALL})")


@pytest.fixture(params=sorted(encoders.ENCODERS))
def which(request):
    """Each encoder, where installed."""
    found = encoders.ENCODERS[request.param]
    if not found.available():
        pytest.skip(f"the {request.param} encoder is not installed ({found.install})")
    return found


def _apprentices(say):
    placed = say(*APPRENTICES)
    return placed[0], placed[2], placed[4]


def _turn_on(memory):
    config = memory.root / "souveraine.toml"
    text = config.read_text()
    config.write_text(text.replace("[recall]\n", "[recall]\nsemantic = true\n") if "[recall]\n" in text
                      else text + "\n[recall]\nsemantic = true\n")


def _keys(hits):
    return [(h.path, h.block) for h in hits]


def test_without_asking_recall_ranks_by_words_alone(memory, say):
    _apprentices(say)
    assert memory.config["recall"]["semantic"] == "auto"     # "auto": no process here keeps a model warm
    plain = recall(memory, "Which apprentices has Karim trained?")
    assert _keys(plain.hits) == _keys(recall(memory, "Which apprentices has Karim trained?", semantic=False).hits)
    assert not semantic.location(memory).exists()           # nothing computed, nothing stored


def test_asking_without_the_extra_is_a_one_line_error(memory, say, monkeypatch, invoke):
    _apprentices(say)
    for kind in (encoders.Static, encoders.MiniLM):         # none installed
        monkeypatch.setattr(kind, "available", lambda self: False)
    with pytest.raises(UsageError, match=r"needs a sentence encoder: pip install wordllama"):
        recall(memory, "apprentices", semantic=True)
    result = invoke("recall", "apprentices", "--semantic")
    assert result.exit_code != 0
    assert "pip install wordllama" in result.output and len(result.output.strip().splitlines()) == 1
    assert recall(memory, "apprentices").hits == []        # "auto": words alone (none here), no error


def test_the_config_names_the_encoder(memory, say, monkeypatch, invoke):
    _apprentices(say)
    config = memory.root / "souveraine.toml"
    text = config.read_text()
    if "[recall]\n" not in text:
        text += "\n[recall]\n"
    config.write_text(text.replace("[recall]\n", "[recall]\nencoder = \"minilm\"\n"))
    monkeypatch.setattr(encoders.MiniLM, "available", lambda self: False)
    result = invoke("recall", "apprentices", "--semantic")
    assert result.exit_code != 0 and len(result.output.strip().splitlines()) == 1
    assert "encoder names all-MiniLM-L6-v2, which is not installed: pip install 'souveraine[semantic]'" in result.output
    config.write_text(text.replace("[recall]\n", "[recall]\nencoder = \"bert\"\n"))
    result = invoke("recall", "apprentices", "--semantic")
    assert result.exit_code != 0 and "'recall.encoder' must be" in result.output
    config.write_text(text.replace("[recall]\n", "[recall]\nencoder = \"static\"\n"))
    result = invoke("index", "--vectors", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["vectors"]["encoder"] == encoders.Static.name


def test_blend_raises_by_likeness_and_lets_the_most_alike_in():
    pool = {1: 10.0, 2: 4.0}
    likeness = {1: 0.1, 2: 0.5, 3: 0.9, 4: 0.3, 5: 0.2}
    semantic.blend(pool, likeness, weight=1.0, depth=3)      # the 3rd best cosine (0.3) counts as 0
    assert pool == pytest.approx({1: 10.0, 2: 4.0 + 10.0 * (0.5 - 0.3) / 0.6, 3: 10.0})
    unchanged = {1: 10.0}
    semantic.blend(unchanged, likeness, weight=0.0, depth=3)
    assert unchanged == {1: 10.0}


def test_meaning_finds_the_turns_that_share_no_word_with_the_question(memory, say, which):
    lucas, ines, bilal = _apprentices(say)
    question = "Which apprentices has Karim trained?"
    words = _keys(recall(memory, question, limit=3, semantic=False).hits)
    meaning = _keys(recall(memory, question, limit=3, semantic=semantic.Matcher(semantic.location(memory), which=which)).hits)
    assert len({lucas, ines, bilal} & set(meaning)) > len({lucas, ines, bilal} & set(words))
    assert len({lucas, ines, bilal} & set(meaning)) >= 2


def test_vectors_are_computed_once_and_follow_the_text(memory, say, which):
    _apprentices(say)
    recall(memory, "apprentice training", semantic=semantic.Matcher(semantic.location(memory), which=which))
    store = semantic.Store(semantic.location(memory))
    try:
        first = store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    finally:
        store.close()
    assert first >= 9                   # every turn (and init's notes) once
    calls = []
    real = semantic.encode
    semantic.encode = lambda texts, progress=None, which=None: calls.append(len(texts)) or real(texts, progress, which)
    try:
        recall(memory, "apprentice training", semantic=semantic.Matcher(semantic.location(memory), which=which))
        assert calls == [1]             # the query alone: every document's vector was kept
        say(("2026-09-01T07:00:00", "user", "Maëlle asked whether she could do her CAP with us", "g"))
        recall(memory, "apprentice training", semantic=semantic.Matcher(semantic.location(memory), which=which))
        assert calls == [1, 1, 1]       # the new turn, then the query
    finally:
        semantic.encode = real


def test_with_vectors_two_hits_are_alike_as_far_as_they_mean_the_same():
    import numpy as np
    from souveraine.recall.diversity import Candidate, likeness, select

    same, near, far = np.array([1.0, 0.0]), np.array([0.8, 0.6]), np.array([0.0, 1.0])
    a, b, c = Candidate(1, 1.0, "s1", vector=same), Candidate(2, 0.9, "s2", vector=near), Candidate(3, 0.8, "s3", vector=far)
    assert likeness(a, b) == 0.0                    # words and sessions alone: nothing in common
    assert likeness(a, b, vectors=0.5) == pytest.approx(0.4)
    assert likeness(a, c, vectors=0.5) == 0.0
    assert [x.id for x in select([a, b, c], 2, penalty=0.3, vectors=0.5)] == [1, 3]
    assert [x.id for x in select([a, b, c], 2, penalty=0.3)] == [1, 2]


def test_more_like_the_best_hits_is_the_likeness_to_their_centroid():
    import numpy as np

    matrix = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [-1.0, 0.0]], dtype=np.float32)
    meaning = semantic.Meaning(None, [7, 8, 9, 10], matrix, {7: 0, 8: 1, 9: 2, 10: 3})
    more = semantic.more_like(meaning, [7, 8])          # the centroid of (1, 0) and (0, 1)
    assert meaning.of([7, 8, 9, 10, 42], more) == pytest.approx({7: 0.7071, 8: 0.7071, 9: 0.9899, 10: -0.7071},
                                                                abs=1e-3)
    assert meaning.best(2, more) == pytest.approx({9: 0.9899, 7: 0.7071}, abs=1e-3) or \
        meaning.best(2, more) == pytest.approx({9: 0.9899, 8: 0.7071}, abs=1e-3)       # a tie for second
    assert semantic.more_like(meaning, [42]) is None        # no vector for the hits: nothing to add


def _unit(rng, rows, dimensions=16):
    import numpy as np

    matrix = rng.standard_normal((rows, dimensions)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)


def test_more_like_these_runs_where_the_encoder_or_the_ranking_asks(memory, say, which, monkeypatch):
    from souveraine.recall.rank import Ranking

    _apprentices(say)
    matcher = semantic.Matcher(semantic.location(memory), which=which)
    asked = []
    real = semantic.more_like
    monkeypatch.setattr(semantic, "more_like", lambda meaning, best: asked.append(len(best)) or real(meaning, best))

    def times(**ranking) -> int:
        asked.clear()
        recall(memory, "Which apprentices has Karim trained?", semantic=matcher,
               ranking=Ranking(1.8e9, **ranking) if ranking else None)
        return len(asked)

    assert times() == (1 if which.more_like else 0)     # the encoder's own share: MiniLM's 0.5, the static one's 0
    assert times(semantic_more=0.5) == 1
    assert times(semantic_more=0.0) == 0


def test_the_best_few_blend_exactly_as_every_cosine_would():
    """A query blends the ``depth`` best cosines only: the same pool as blending all of them."""
    import numpy as np

    rng = np.random.default_rng(3)
    for _ in range(50):
        size = int(rng.integers(1, 400))
        matrix, query = _unit(rng, size), _unit(rng, 1)[0]
        ids = rng.permutation(10_000)[:size].tolist()
        meaning = semantic.Meaning(query, ids, matrix, {i: n for n, i in enumerate(ids)})
        pool = {i: float(rng.random()) * 10 for i in rng.choice(ids, size=min(size, 30), replace=False).tolist()}
        depth = int(rng.integers(1, 80))
        every, few = dict(pool), dict(pool)
        every_cosine = dict(zip(ids, semantic.cosines(matrix, query).tolist()))
        semantic.blend(every, every_cosine, 1.0, depth)
        semantic.blend(few, meaning.best(depth), 1.0, depth)
        assert few == pytest.approx(every)
        assert meaning.of(ids) == pytest.approx(dict(zip(ids, (matrix @ query).tolist())), abs=1e-6)


def test_one_matcher_keeps_its_vectors_until_the_index_changes(memory, say, which):
    _apprentices(say)
    matcher = semantic.Matcher(semantic.location(memory), which=which)
    recall(memory, "apprentice training", semantic=matcher)
    held = matcher._held
    recall(memory, "who bakes the bread", semantic=matcher)
    assert matcher._held is held                    # the same matrix: nothing re-read
    new, = say(("2026-09-01T07:00:00", "user", "Maëlle asked whether she could do her CAP with us", "g"))
    hits = recall(memory, "Maëlle CAP", semantic=matcher).hits
    assert matcher._held is not held and (hits[0].path, hits[0].block) == new


@needs_model
def test_the_config_turns_it_on_for_the_cli(memory, say, invoke):
    lucas, ines, bilal = _apprentices(say)
    _turn_on(memory)
    hits = json.loads(invoke("recall", "Which apprentices has Karim trained?", "--limit", "3", "--json").output)
    assert len({lucas, ines, bilal} & {(h["path"], h["block"]) for h in hits}) >= 2
    off = json.loads(invoke("recall", "Which apprentices has Karim trained?", "--limit", "3", "--no-semantic",
                            "--json").output)
    assert [(h["path"], h["block"]) for h in off] != [(h["path"], h["block"]) for h in hits]


def test_two_encoders_keep_their_vectors_apart(memory, say, monkeypatch):
    """A memory whose encoder changes (the extra installed, or removed) never compares a query
    with vectors of the other encoder: the store's keys hold the encoder's name."""
    _apprentices(say)
    static = encoders.ENCODERS["static"]
    recall(memory, "apprentice training", semantic=semantic.Matcher(semantic.location(memory), which=static))

    class Other(encoders.Encoder):
        name, dimensions = "another-encoder", 3

        def available(self):
            return True

        def encode(self, texts):
            import numpy as np

            return np.tile(np.array([1.0, 0.0, 0.0], np.float32), (len(texts), 1))

    conn, _ = index.fresh(memory)
    try:
        assert semantic.missing(conn, semantic.location(memory), which=static) == []
        texts = len(semantic.missing(conn, semantic.location(memory), which=Other()))
        assert texts >= 9                       # every text again: none of the static vectors is the other's
        assert semantic.fill(conn, semantic.location(memory), which=Other()) == texts
        assert semantic.missing(conn, semantic.location(memory), which=static) == []    # both kept
    finally:
        conn.close()


def test_the_static_encoder_is_wordllamas_mean_of_token_vectors():
    """The vectors are the mean of the tokens' rows of the shipped table, unit length: read the
    table and the tokenizer independently of encoders.py and compare."""
    import numpy as np
    from tokenizers import Tokenizer

    static = encoders.ENCODERS["static"]
    folder = static.folder()
    texts = ["Which authors has he read?", "Inês e Tomás foram a Braga 🎉", "", "ok"]
    got = semantic.encode(texts, which=static)
    tokenizer = Tokenizer.from_file(str(folder.joinpath(*static.TOKENIZER)))
    from safetensors.numpy import load_file

    table = load_file(str(folder.joinpath(*static.WEIGHTS)))[static.TENSOR].astype(np.float32)
    for text, row in zip(texts, got):
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        if not ids:
            assert not row.any()
            continue
        mean = table[ids].mean(axis=0)
        assert row == pytest.approx(mean / np.linalg.norm(mean), abs=1e-5)
    alike = semantic.encode(["she finished reading a novel by Murakami", "which books has she read"], which=static)
    unlike = semantic.encode(["she finished reading a novel by Murakami", "the boiler needs a new valve"], which=static)
    assert float(alike[0] @ alike[1]) > float(unlike[0] @ unlike[1])


def test_a_turn_is_read_with_the_turn_it_answers(memory, say):
    """A turn's vector text begins with the turn before it in its conversation (never one of
    another conversation), so "Three times a week" carries the question it answers."""
    asked, answer, other = say(
        ("2026-03-02T07:00:00", "user", "How often do you work out with your family?", "a"),
        ("2026-03-02T07:01:00", "assistant", "Three times a week; it keeps us on track.", "a"),
        ("2026-03-02T09:00:00", "user", "The boiler needs a new valve.", "b"))
    conn, _ = index.fresh(memory)
    try:
        texts = {tuple(conn.execute("SELECT path, block FROM docs WHERE id = ?", (i,)).fetchone()): t
                 for i, t in semantic._texts(conn, None).items()}
        again = semantic._texts(conn, {i for (i,) in conn.execute("SELECT id FROM docs")}, whole=False)
    finally:
        conn.close()
    assert texts[answer] == "How often do you work out with your family?\nThree times a week; it keeps us on track."
    assert texts[asked] == "How often do you work out with your family?"        # the first of its conversation
    assert texts[other] == "The boiler needs a new valve."                        # another conversation's
    assert sorted(again.values()) == sorted(semantic._texts(conn := index.fresh(memory)[0], None).values())
    conn.close()


def test_meaning_alone_looks_among_the_newest_and_words_bring_the_older():
    """Past ``recent`` documents, one is found by meaning alone only among the newest; an older
    one is still compared with the query when its words found it (``also``), and what both
    give equals the exact best over the newest and those."""
    import numpy as np

    rng = np.random.default_rng(11)
    matrix, query = _unit(rng, 500), _unit(rng, 1)[0]
    ids = list(range(1000, 1500))
    rows = {i: n for n, i in enumerate(ids)}
    meaning = semantic.Meaning(query, ids, matrix, rows, recent=100)
    exact = dict(zip(ids, semantic.cosines(matrix, query).tolist()))
    newest = {i: c for i, c in exact.items() if i >= 1400}
    assert meaning.best(10) == pytest.approx(dict(sorted(newest.items(), key=lambda kv: -kv[1])[:10]))
    oldest_best = max((i for i in ids if i < 1400), key=exact.get)
    assert oldest_best not in meaning.best(10)                      # older: not by meaning alone…
    found = meaning.best(10, also=[oldest_best, 1450])
    among = {**newest, oldest_best: exact[oldest_best]}
    assert found == pytest.approx(dict(sorted(among.items(), key=lambda kv: -kv[1])[:10]))
    assert semantic.Meaning(query, ids, matrix, rows).best(10) == pytest.approx(
        dict(sorted(exact.items(), key=lambda kv: -kv[1])[:10]))   # under 20,000: every document


def test_the_quickstarts_question_by_meaning_finds_the_sisters_arrival(memory, invoke):
    """examples/quickstart.sh shows meaning with the default install (the static encoder): its
    question shares no word with the turn it finds."""
    config = memory.root / "souveraine.toml"
    text = config.read_text()
    config.write_text(text.replace("[recall]\n", "[recall]\nencoder = \"static\"\n") if "[recall]\n" in text
                      else text + "\n[recall]\nencoder = \"static\"\n")
    for user, assistant in (("My sister Lena lands in Lisbon on Friday.",
                             "Noted: Lena arrives in Lisbon on Friday. I'll remember that you take your tea green."),
                            ("Can you book the train to Porto for Saturday?",
                             "I'll follow up on the Porto train tomorrow, once the timetable is out.")):
        assert invoke("persist", "--session", "demo", "--user", user, "--assistant", assistant).exit_code == 0
    assert invoke("reflect", "--force").exit_code == 0
    found = json.loads(invoke("recall", "family visit", "--semantic", "--limit", "1", "--json").output)
    assert [hit["snippet"] for hit in found] == ["My sister Lena lands in Lisbon on Friday."]
