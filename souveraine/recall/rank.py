"""The score: BM25 relevance, raised by tier and by freshness.

``score = relevance × tier weight × (1 + recency weight × freshness)``

- relevance is FTS5's BM25 (negated: higher is better), with a weight per column — a note's
  title counts more than its body, the turns around a turn count less than the turn itself;
- freshness is ``0.5 ** (age / half-life)`` for episodic items ([recall] half_life_days,
  30 by default), and 1 for foundational and constitutive memories and for undated
  knowledge notes (people, domains, reference), which never decay;
- recency multiplies rather than filters, so it orders comparable matches and raises a
  score by half at most: a good old match still beats a poor fresh one. The weight 0.5 was
  measured (bench/quality_recall.py, docs/RECALL.md): 1.0 let fresh chatter bury older facts.

Everything is one SQL expression, so SQLite sorts and cuts to the limit in one pass.
"""

from datetime import date

from souveraine.recall import dates
from souveraine.record import Frozen, Record

TIER_WEIGHTS = {"constitutive": 1.5, "foundational": 1.25}
COLUMN_WEIGHTS = {"title": 2.0, "body": 1.0, "context": 0.25, "links": 1.0}
RECENCY_WEIGHT = 0.5
DAY = 86_400.0
SAMPLE = 2000           # newest documents a word's share is read on
COMMON_SHARE = 0.3      # above it a word is too common to rank by
WINDOW = 1000           # newest matches scored when every word is that common
RARE_SHARE = 0.01       # above it a word is frequent: scored over the newest documents only …
RECENT_DOCS = 20_000    # … these many (a year and a half of 40 turns a day)
DATE_WEIGHT = 4.0       # a hit said or told of within the query's dates scores up to this much more
TOLD_AFTER_DAYS = 10.0  # half-life of the evidence of a turn said after the period: events are told later
SAID_BEFORE_DAYS = 1.5  # … and before it (plans)
SPEAKER_WEIGHT = 0.5    # a turn by the speaker a query names (“Karim”, addressed so) scores this much more
PERIOD_FLOOR = 0.4      # a turn said in a short period the query names, matching no word: this share of the best match
SEMANTIC_WEIGHT = 1.0   # with sentence vectors: the document most like the query gains this share of the best match
SEMANTIC_DEPTH = 60     # … and the documents most like it join the pool (semantic.blend)
SEMANTIC_DIVERSITY = 0.5    # with vectors, two hits are alike by this share as their cosine says
KIND_WEIGHT = 0.5       # a hit naming a person for "who", a place for "where", scores this much more
SEMANTIC_MORE = None    # … and what is like the best hits gains this share of the best match: None, the encoder's (semantic.more_like)


class Ranking(Frozen):
    """How a search scores: ``now`` (POSIX seconds) and the weights; each default is also the
    class's attribute of that name. ``weights`` (the columns') defaults to a copy of COLUMN_WEIGHTS."""

    _fields = ("now", "half_life_days", "recency", "recency_weight", "weights", "date_weight", "answer_share",
               "diversity", "answers_asked", "diversity_words", "period_floor", "speaker_weight", "inflections",
               "semantic_weight", "semantic_depth", "semantic_diversity", "semantic_more", "prompt_share", "asking",
               "kind_weight")
    half_life_days = 30.0
    recency = True
    recency_weight = RECENCY_WEIGHT
    date_weight = DATE_WEIGHT
    answer_share = 0.5                  # conversation.ANSWER_SHARE
    diversity = 0.3                     # diversity.PENALTY
    answers_asked = True                # only a turn that asks passes its match on (conversation.py)
    diversity_words = 0.5               # diversity.WORDS
    period_floor = PERIOD_FLOOR         # search.Search._period
    speaker_weight = SPEAKER_WEIGHT     # search.Search._speaker
    inflections = True                  # query.inflected: "buy" also finds "bought"
    semantic_weight = SEMANTIC_WEIGHT   # semantic.blend, when sentence vectors are used
    semantic_depth = SEMANTIC_DEPTH
    semantic_diversity = SEMANTIC_DIVERSITY     # diversity.likeness: the share of likeness in meaning
    semantic_more = SEMANTIC_MORE       # semantic.more_like: the best hits' centroid as a second query
    prompt_share = 0.5                  # conversation.PROMPT_SHARE: a turn inherits from the reply after it
    asking = 0.5                        # conversation.ASKING: a turn that ends asking something
    kind_weight = KIND_WEIGHT           # kinds.naming: a hit naming the kind of thing asked for scores this much more

    def __init__(self, now: float, half_life_days: float = half_life_days, recency: bool = recency,
                 recency_weight: float = recency_weight, weights: dict[str, float] | None = None,
                 date_weight: float = date_weight, answer_share: float = answer_share, diversity: float = diversity,
                 answers_asked: bool = answers_asked, diversity_words: float = diversity_words,
                 period_floor: float = period_floor, speaker_weight: float = speaker_weight,
                 inflections: bool = inflections, semantic_weight: float = semantic_weight,
                 semantic_depth: int = semantic_depth, semantic_diversity: float = semantic_diversity,
                 semantic_more: float | None = semantic_more, prompt_share: float = prompt_share, asking: float = asking,
                 kind_weight: float = kind_weight):
        self.__dict__.update(
            now=now, half_life_days=half_life_days, recency=recency, recency_weight=recency_weight,
            weights=dict(COLUMN_WEIGHTS) if weights is None else weights, date_weight=date_weight,
            answer_share=answer_share, diversity=diversity, answers_asked=answers_asked,
            diversity_words=diversity_words, period_floor=period_floor, speaker_weight=speaker_weight,
            inflections=inflections, semantic_weight=semantic_weight, semantic_depth=semantic_depth,
            semantic_diversity=semantic_diversity, semantic_more=semantic_more, prompt_share=prompt_share,
            asking=asking, kind_weight=kind_weight)

    def params(self) -> dict[str, float]:
        return {"now": self.now, "half_life": self.half_life_days * DAY,
                "recency": self.recency_weight if self.recency else 0.0}

    def relevance(self, columns: tuple[str, ...]) -> str:
        return f"(-bm25(fts, {', '.join(repr(float(self.weights.get(c, 1.0))) for c in columns)}))"

    @staticmethod
    def boost(alias: str = "d") -> str:
        tiers = " ".join(f"WHEN '{tier}' THEN {weight!r}" for tier, weight in TIER_WEIGHTS.items())
        freshness = (f"CASE WHEN {alias}.decays THEN pow(0.5, max(0.0, :now - {alias}.ts) / :half_life) ELSE 1.0 END")
        return f"(CASE {alias}.tier {tiers} ELSE 1.0 END) * (1.0 + :recency * {freshness})"


def tier_weight(tier: str | None) -> float:
    return TIER_WEIGHTS.get(tier or "", 1.0)


def boost(ranking: "Ranking", tier: str | None, decays: bool, ts: float | None) -> float:
    """The same factor as ``Ranking.boost``, in Python, for a document found another way."""
    fresh = 0.5 ** (max(0.0, ranking.now - ts) / (ranking.half_life_days * DAY)) if decays and ts is not None else 1.0
    return tier_weight(tier) * (1.0 + (ranking.recency_weight if ranking.recency else 0.0) * fresh)


def closeness(span: dates.Span, said: date | None, told: list[tuple[date, date]]) -> float:
    """How well a document's dates fit the period asked about, from 0 to 1: 1 when it was said
    within it or names a day in it, fading with the days between (more slowly after the
    period, since events are told after they happen)."""
    best = 0.0
    if said is not None:
        gap = dates.days_between(span, said)
        best = 1.0 if gap == 0 else 0.5 ** (gap / TOLD_AFTER_DAYS if gap > 0 else -gap / SAID_BEFORE_DAYS)
    for since, until in told:
        if (span.until is None or since <= span.until) and (span.since is None or until >= span.since):
            return 1.0
        gap = min(abs(dates.days_between(span, since)), abs(dates.days_between(span, until)))
        best = max(best, 0.5 ** (gap / SAID_BEFORE_DAYS))
    return best


class Plan(Record):
    """Which terms to rank by, and how far back each is scored (see ``plan``)."""

    __slots__ = _fields = ("terms", "window", "recent", "rare", "dropped")

    def __init__(self, terms: list, window: bool = False, recent: int = 0, rare: list | None = None,
                 dropped: list | None = None):
        self.terms = terms              # the terms ranked by
        self.window = window            # every term is common: only the newest WINDOW matches
        self.recent = recent            # frequent terms are scored on documents from this id on
        self.rare = [] if rare is None else rare            # … and these over the whole memory
        self.dropped = [] if dropped is None else dropped   # too common as stemmed: looked up as names


def plan(conn, terms: list) -> Plan:
    """The terms worth ranking by, and where each is scored, so that a query costs the same in a
    memory of ten years as in one of one.

    A word in a third of the documents weighs almost nothing in BM25 (its IDF tends to 0;
    above half, FTS5 clamps it to 1e-6), yet scoring its matches costs the most: at ten years
    "thinking" matches 100,000 turns. Such words are dropped when rarer ones remain. Porter
    stemming makes a few names such words ("Ines" is read "in"). When every word is that
    common, the ranking is all tier and recency anyway, so only the newest matches are scored.

    Scoring is what costs (FTS5 ranks every match), so in a memory of more than RECENT_DOCS
    documents a *frequent* word (in more than RARE_SHARE of the newest documents: 16,000
    matches at ten years) is scored over the newest RECENT_DOCS documents only, and the rare
    words over the whole memory: an older turn is found by the query's rarer words. (Pairs of
    frequent words scored together were tried: words that go together, "curry" and
    "lentils", match together as often as alone.)
    The shares are read on the newest documents, which costs a fraction of a millisecond.
    """
    single = [t for t in terms if len(t.words) == 1 and not t.prefix]
    if not single:
        return Plan(terms)
    top = conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 0
    floor = top - SAMPLE
    size = conn.execute("SELECT count(*) FROM docs WHERE id > ?", (floor,)).fetchone()[0]
    if size < SAMPLE // 2:
        return Plan(terms)
    share = {id(t): conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid > ?",
                                 (t.fts(), floor)).fetchone()[0] / size for t in single}
    kept = [t for t in terms if share.get(id(t), 0.0) <= COMMON_SHARE]
    dropped = [t for t in terms if share.get(id(t), 0.0) > COMMON_SHARE]
    if not kept:
        return Plan(terms, window=True, dropped=dropped)
    frequent = [t for t in kept if share.get(id(t), 0.0) > RARE_SHARE]
    if not frequent or top <= RECENT_DOCS:
        return Plan(kept, dropped=dropped)
    rare = [t for t in kept if share.get(id(t), 0.0) <= RARE_SHARE]
    return Plan(kept, recent=top - RECENT_DOCS, rare=rare, dropped=dropped)


def informative(conn, terms: list) -> tuple[list, bool]:
    """The terms worth ranking by, and whether only the newest matches are scored."""
    found = plan(conn, terms)
    return found.terms, found.window


def window(conn, match: str) -> int:
    """The smallest rowid among the newest WINDOW matches (rowids grow with time)."""
    row = conn.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                       (match, WINDOW - 1)).fetchone()
    return row[0] if row else 0
