"""The top k spread over conversations: maximal marginal relevance.

"Which authors has he read?" has its evidence in four sessions; a plain ranking fills the
top ten with one session's turns about one book. Each pick here is the candidate whose score
(as a share of the best) minus ``PENALTY`` × its likeness to what was already picked is
highest. Two hits are alike when they come from the same conversation (a turn's session, a
note's own file, a derived note's source session) and when they matched the same query words;
with sentence vectors (semantic.py), also as far as they mean the same.
"""

from souveraine.record import Record

PENALTY = 0.3           # the default of rank.Ranking.diversity
WORDS = 0.5             # the share of likeness from matching the same query words
POOL = 4            # candidates looked at per hit asked for


class Candidate(Record):
    __slots__ = _fields = ("id", "score", "group", "words", "vector")

    def __init__(self, id: int, score: float, group: str, words: frozenset = frozenset(), vector: object = None):
        self.id, self.score = id, score
        self.group = group                      # what counts as one conversation
        self.words = words
        self.vector = vector                    # a unit vector, with sentence vectors


def select(candidates: list[Candidate], limit: int, penalty: float = PENALTY,
           words: float = WORDS, vectors: float = 0.0) -> list[Candidate]:
    """``limit`` candidates, best first, each as unlike the ones before it as its score allows."""
    pool = sorted(candidates, key=lambda c: -c.score)[:max(limit * POOL, limit)]
    if not pool or penalty <= 0:
        return pool[:limit]
    top = pool[0].score or 1.0
    meaning = _cosines(pool) if vectors else None
    left = list(range(len(pool)))
    alike = [0.0] * len(pool)           # each one's likeness to its nearest pick so far
    chosen: list[int] = []
    while left and len(chosen) < limit:
        at = max(left, key=lambda i: pool[i].score / top - penalty * alike[i])
        left.remove(at)
        chosen.append(at)
        for i in left:
            alike[i] = max(alike[i], _likeness(pool[i], pool[at], words, vectors, meaning(i, at) if meaning else None))
    return [pool[i] for i in chosen]


def likeness(a: Candidate, b: Candidate, words: float = WORDS, vectors: float = 0.0) -> float:
    cosine = float(a.vector @ b.vector) if a.vector is not None and b.vector is not None else None
    return _likeness(a, b, words, vectors, cosine)


def _likeness(a: Candidate, b: Candidate, words: float, vectors: float, cosine: float | None) -> float:
    same = 1.0 if a.group and a.group == b.group else 0.0
    union = a.words | b.words
    shared = len(a.words & b.words) / len(union) if union else 0.0
    out = (1.0 - words) * same + words * shared
    if vectors and cosine is not None:
        out = (1.0 - vectors) * out + vectors * max(0.0, cosine)
    return out


def _cosines(pool: list[Candidate]):
    """The cosine of two candidates by their places in the pool (None where one has no vector),
    every pair from one product; None where no candidate has a vector."""
    held = {i: n for n, i in enumerate(i for i, c in enumerate(pool) if c.vector is not None)}
    if not held:
        return None             # by words alone: numpy is never imported (80 ms of a command's start)
    import numpy as np

    vectors = np.stack([pool[i].vector for i in held]).astype(np.float32)
    products = np.einsum("ik,jk->ij", vectors, vectors).tolist()      # einsum: no BLAS threads (semantic.cosines)
    return lambda a, b: products[held[a]][held[b]] if a in held and b in held else None
