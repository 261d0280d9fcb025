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

from dataclasses import dataclass, field

TIER_WEIGHTS = {"constitutive": 1.5, "foundational": 1.25}
COLUMN_WEIGHTS = {"title": 2.0, "body": 1.0, "context": 0.25, "links": 1.0}
RECENCY_WEIGHT = 0.5
DAY = 86_400.0


@dataclass(frozen=True)
class Ranking:
    now: float                          # POSIX seconds
    half_life_days: float = 30.0
    recency: bool = True
    recency_weight: float = RECENCY_WEIGHT
    weights: dict[str, float] = field(default_factory=lambda: dict(COLUMN_WEIGHTS))

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


def freshness(age_seconds: float, half_life_days: float) -> float:
    """The same decay as the SQL, for one item."""
    return 0.5 ** (max(0.0, age_seconds) / (half_life_days * DAY))
