"""The recall path's shortcuts give what the plain computation gives: the date patterns a
query cannot match are skipped, and diversity keeps each candidate's nearest likeness."""

import random
from datetime import date

import pytest

from souveraine.recall import dates, diversity

TODAY = date(2026, 11, 30)
QUERIES = [
    "what did I say about that book in March", "since May", "release planned since May", "morning meeting roadmap",
    "between August 11 and 15, 2023", "the week before August 3", "last Friday on 23 January, 2022",
    "two weeks ago", "in the last 10 days", "3 days ago", "this weekend", "the first weekend of June",
    "mid-April at the clinic", "end of sept. 2024", "Jan 3rd-5th", "from 3 to 9 May", "2026-05-03 dinner",
    "budget 2026-05", "before 2026", "I may go", "march on", "monday meetings", "lastmay", "thismonday",
    "dinner yesterday", "the day before yesterday", "this evening", "a couple of weeks ago",
    # what IGNORECASE matches beyond ASCII: the long s, the dotless and dotted i, the Kelvin sign
    "ſince May", "frİday", "last frıday", "3 wee\u212as ago", "Tomás in Março", "Inês, 5 de maio",
    "١٢ May", "zeppelin", "", "   ",
]


@pytest.mark.parametrize("query", QUERIES)
def test_skipping_patterns_reads_the_same_dates(query, monkeypatch):
    gated = dates.extract(query, TODAY, "the anchor")
    monkeypatch.setattr(dates, "_compiled", lambda text="": {n: dates._pattern(n) for n in dates._PATTERNS})
    assert dates.extract(query, TODAY, "the anchor") == gated


def _plain_select(candidates, limit, penalty=diversity.PENALTY, words=diversity.WORDS):
    pool = sorted(candidates, key=lambda c: -c.score)[:max(limit * diversity.POOL, limit)]
    if not pool or penalty <= 0:
        return pool[:limit]
    top = pool[0].score or 1.0
    chosen = []
    while pool and len(chosen) < limit:
        best = max(pool, key=lambda c: c.score / top
                   - penalty * max((diversity.likeness(c, s, words) for s in chosen), default=0.0))
        chosen.append(best)
        pool.remove(best)
    return chosen


@pytest.mark.parametrize("seed", range(30))
def test_diversity_picks_as_the_plain_computation(seed):
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(6)]
    candidates = [diversity.Candidate(i, rng.choice([1.0, 0.5, rng.random(), rng.random() * 3]),
                                      rng.choice(["", "s1", "s2", "s3", f"own{i}"]),
                                      frozenset(rng.sample(vocabulary, rng.randint(0, 3))))
                  for i in range(rng.randint(0, 60))]
    limit = rng.choice([1, 3, 10])
    penalty = rng.choice([0.0, 0.3, 0.8])
    assert diversity.select(candidates, limit, penalty) == _plain_select(candidates, limit, penalty)
