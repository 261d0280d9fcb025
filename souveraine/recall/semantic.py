"""Meaning as well as words: documents compared with the query as sentence vectors.

"Which apprentices has Karim trained?" has three evidence turns that name Lucas, Inès and
Bilal and never say "apprentice"; BM25 cannot find them, a sentence encoder can. With an
encoder installed (encoders.py: the static one comes with souveraine, MiniLM with the
``semantic`` extra) and vectors asked for (``--semantic``, ``[recall] semantic = true``, or
"auto" in a process that keeps the encoder warm: the recall server, the MCP server), the
documents most like the query in meaning join the pool BM25 ranks, and every candidate's
relevance is raised by its likeness (search.Search).

A document's vector is computed once — ahead by ``fill`` (``souveraine index --vectors``, a
recall server when idle), else by the first semantic search after it was written — and kept
in ``.souveraine/vectors.sqlite`` under a hash of the encoder's name and the text: a cache like
the index, never stale (a changed text is a new key), kept across index rebuilds. A recall
that does not use vectors imports nothing of this and ranks by words alone.
"""

import os
import sqlite3
import threading
from pathlib import Path

from souveraine.errors import UsageError
from souveraine.recall.encoders import INSTALL_MINILM, INSTALL_STATIC
from souveraine.record import Record

FILE = "vectors.sqlite"
BATCH = 64
CHARS = 1500            # the start of a long note is what its vector says (the model reads ~256 tokens)
AUTO = "auto"          # [recall] semantic: vectors when a warm process has them, never a wait
INSTALL = f"{INSTALL_STATIC}, or {INSTALL_MINILM} for MiniLM"
MORE_LIKE = 5           # the best hits whose centroid is a second query (more_like)


def current(memory=None):
    """The encoder ``memory``'s ``[recall] encoder`` names ("auto", and without a memory: the
    best installed, encoders.py), or None when "auto" finds none."""
    from souveraine.recall import encoders

    name = memory.config["recall"].get("encoder", encoders.AUTO) if memory is not None else encoders.AUTO
    return encoders.named(name)


def available(memory=None) -> bool:
    """Whether the encoder ``memory`` uses is installed (looked up, not imported: no start-up cost)."""
    which = current(memory)
    return which is not None and which.available()


def require(memory=None) -> None:
    which = current(memory)
    if which is None:
        raise UsageError(f"semantic recall needs a sentence encoder: {INSTALL}")
    if not which.available():
        raise UsageError(f"[recall] encoder names {which.name}, which is not installed: {which.install}")


def encoder(which=None):
    """The encoder (``which``, else ``current()``), loaded once per process: a fraction of a
    second for the static one, seconds for MiniLM (a long-lived process keeps it, ``keep_warm``)."""
    if which is not None and which.name in _loaded:
        return which            # loaded: a query does not look its package up again
    require()
    which = which or current()
    with _loading:              # a query and the background load never both load it
        which.load()
        _loaded.add(which.name)
    return which


_loaded: set[str] = set()           # the names of the encoders loaded in this process
_loading = threading.Lock()
_encoding = threading.Lock()        # one batch through the model at a time (a query waits one batch at most)


def loaded(which=None) -> bool:
    which = which or current()
    return which is not None and which.name in _loaded


def encode(texts: list[str], progress=None, which=None):
    """Unit vectors (float32, one row per text)."""
    import numpy as np

    which = encoder(which)
    out = []
    for start in range(0, len(texts), BATCH):
        with _encoding:
            out.append(which.encode(texts[start:start + BATCH]))
        if progress:
            progress(min(start + BATCH, len(texts)), len(texts))
    return np.vstack(out).astype(np.float32) if out else np.zeros((0, which.dimensions), np.float32)


def key(text: str, name: str) -> bytes:
    """A document's key in the store: its encoder's name and its text, hashed."""
    import hashlib          # here: a recall that only asks whether the extra is installed imports no OpenSSL

    return hashlib.blake2b(f"{name}\0{text}".encode(), digest_size=16).digest()


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


class Meaning(Record):
    """What the vectors say about one query: the documents most like it, any document's cosine
    with it, and the documents' own vectors (for telling two hits apart, diversity.likeness).

    The cosines stay one array, and a query reads the few it blends (``best``, ``of``), never
    a dictionary of every document. As words are (rank.plan), documents are looked for by
    meaning alone among the newest ``rank.RECENT_DOCS`` (20,000: a year and a half of 40 turns
    a day); an older one is compared with the query when its words found it (``also``). So a
    query costs about the same at ten years as at one (18 ms in a warm process at ten years,
    where a product over all 150,000 documents made it 33; 11–13 ms at one year)."""

    __slots__ = _fields = ("query", "ids", "matrix", "rows", "start", "cosines", "more")

    def __init__(self, query=None, ids: list[int] | None = None, matrix=None, rows: dict[int, int] | None = None,
                 recent: int | None = None, more: float = 0.0):
        from souveraine.recall.rank import RECENT_DOCS

        self.query = query              # the query's unit vector
        self.ids = [] if ids is None else ids      # the document of each row of ``matrix`` (ids grow with time)
        self.matrix = matrix
        self.rows = {} if rows is None else rows   # document id -> its row
        self.start = max(0, len(self.ids) - (RECENT_DOCS if recent is None else recent))   # the first row searched
        self.cosines = self._window(query) if query is not None and matrix is not None else None
        self.more = more                # the share "more like these" gains with the encoder (encoders.Encoder)

    def _window(self, vector):
        return cosines(self.matrix[self.start:], vector)

    def best(self, depth: int, vector=None, also=()) -> dict[int, float]:
        """The ``depth`` documents most like ``vector`` (else the query), with their cosines: among
        the newest, and the older of ``also`` (the documents words found)."""
        import numpy as np

        if self.matrix is None:
            return {}
        found = self.cosines if vector is None else self._window(vector)
        out = {}
        if found is not None and len(found):
            top = np.argpartition(-found, min(depth, len(found)) - 1)[:depth]
            out = {self.ids[self.start + n]: float(found[n]) for n in top.tolist()}
        if self.start:
            out.update(self.of([i for i in also if self.rows.get(i, self.start) < self.start], vector))
            if len(out) > depth:
                out = dict(sorted(out.items(), key=lambda item: -item[1])[:depth])
        return out

    def of(self, ids, vector=None) -> dict[int, float]:
        """The cosines of the documents ``ids`` (those with a vector) with ``vector`` (else the query)."""
        vector = self.query if vector is None else vector
        found = [i for i in ids if i in self.rows]
        if vector is None or not found:
            return {}
        return dict(zip(found, cosines(self.matrix[[self.rows[i] for i in found]], vector).tolist()))

    def vector(self, doc_id: int):
        row = self.rows.get(doc_id)
        return None if row is None else self.matrix[row]


def cosines(matrix, vector):
    """Each row's product with ``vector`` — without BLAS, whose threads cost more than the
    product on a busy machine (150,000 rows: 7 ms of CPU against 21; 2,000: 0.08 ms against 1.8)."""
    import numpy as np

    return np.einsum("ij,j->i", matrix, vector)


class Matcher:
    """Likeness of the index's documents to a query, their vectors computed as needed.

    One matcher keeps the vectors it read while the index holds the same documents, and when
    the index changes reads only the documents new to it, so a long-lived process (the recall
    server, the MCP server) reads the store once and then encodes each query alone."""

    def __init__(self, file: Path, progress=None, which=None):
        self.file = file
        self.which = which or current()     # the encoder (encoders.py)
        self.progress = progress            # (done, total), told while new documents are encoded
        self._held: tuple | None = None     # (the index's state, ids, matrix, {id: row})
        self._quick: tuple | None = None    # (connection, what ``unchanged`` said) when ``_held`` was checked
        self._rows: dict[int, object] = {}  # document id -> its vector (float16)
        self._seen: set[int] = set()        # the documents read, those without text included
        self._lock = threading.Lock()

    def meaning(self, conn, text: str, wait: bool = True) -> "Meaning | None":
        """Each document's cosine with ``text`` (every document the index holds). Without ``wait``,
        None rather than load the model or encode more than a batch of new documents."""
        if not wait and not loaded(self.which):
            return None
        with self._lock:
            held = self.vectors(conn, wait)
        if held is None:
            return None
        ids, matrix, rows = held
        if not ids:
            return Meaning()
        query = encode([text], which=self.which)[0]
        return Meaning(query, ids, matrix, rows, more=self.which.more_like)

    def vectors(self, conn, wait: bool = True) -> tuple | None:
        quick = (conn, *unchanged(conn))
        if self._held and self._quick is not None and self._quick[0] is conn and self._quick[1:] == quick[1:]:
            return self._held[1:]       # the same connection, and nothing written since: no count to take
        found = state(conn)
        if self._held and self._held[0] == found:
            self._quick = quick
            return self._held[1:]
        import numpy as np

        present = {doc_id for (doc_id,) in conn.execute("SELECT id FROM docs")}
        new = present - self._seen
        texts = _texts(conn, new, whole=len(new) > len(present) // 2)
        keys = {doc_id: key(t, self.which.name) for doc_id, t in texts.items() if t}
        store = Store(self.file)
        try:
            held = store.get(list(set(keys.values())))
            missing = sorted({k: doc_id for doc_id, k in keys.items() if k not in held}.items(),
                             key=lambda item: item[1])
            if missing and not wait and len(missing) > BATCH:
                return None
            if missing:
                made = encode([texts[doc_id] for _, doc_id in missing], self.progress, self.which).astype(np.float16)
                fresh = [(k, made[n].tobytes()) for n, (k, _) in enumerate(missing)]
                store.put(fresh)
                held.update(fresh)
        finally:
            store.close()
        for doc_id in self._seen - present:
            self._rows.pop(doc_id, None)
        self._rows.update((doc_id, np.frombuffer(held[k], dtype=np.float16)) for doc_id, k in keys.items())
        self._seen = (self._seen & present) | new
        ids = sorted(self._rows)
        matrix = (np.stack([self._rows[i] for i in ids]).astype(np.float32) if ids
                  else np.zeros((0, self.which.dimensions), np.float32))
        self._held = (found, ids, matrix, {doc_id: n for n, doc_id in enumerate(ids)})
        self._quick = quick
        return self._held[1:]


# A turn is read with the turn before it in its conversation, the one it answers: "Three times
# a week; it keeps us on track." means little alone, and its vector then holds the question
# "How often do you work out with your family?" too. Journals only grow, so a turn's previous
# turn never changes, nor does its vector's key.
_SELECT = ("SELECT d.id, coalesce(d.title, ''), coalesce(d.body, ''), CASE WHEN d.kind = 'turn' THEN"
           " (SELECT CASE WHEN p.session IS d.session AND p.kind = 'turn' THEN p.body END FROM docs p"
           " WHERE p.path = d.path AND p.line < d.line ORDER BY p.line DESC LIMIT 1) END FROM docs d")
PREVIOUS_CHARS = 300        # of the turn before, at most


def _texts(conn, ids: set[int] | None, whole: bool = True) -> dict[int, str]:
    """The text each of ``ids`` (None: every document) is encoded from (``whole``: read in one
    pass over every document)."""
    if ids is None or whole:
        rows = conn.execute(f"{_SELECT} ORDER BY d.id")
        return {row[0]: _text(*row[1:]) for row in rows if ids is None or row[0] in ids}
    out, listed = {}, sorted(ids)
    for start in range(0, len(listed), 500):
        chunk = listed[start:start + 500]
        rows = conn.execute(f"{_SELECT} WHERE d.id IN ({', '.join('?' * len(chunk))})", chunk)
        out.update((row[0], _text(*row[1:])) for row in rows)
    return out


def missing(conn, file: Path, known: set[int] | None = None, which=None) -> list[tuple[bytes, str]]:
    """The texts of the index's documents whose vectors the store lacks (oldest first), by key;
    ``known``: documents already looked at, left out (a long-lived caller keeps the set);
    ``which``: the encoder (``current()``)."""
    name = (which or current()).name
    if known is None:
        texts = _texts(conn, None)
    else:
        present = {doc_id for (doc_id,) in conn.execute("SELECT id FROM docs")}
        new = present - known
        texts = _texts(conn, new, whole=len(new) > len(present) // 2)
        known.intersection_update(present)
        known.update(new)
    keys = {}
    for doc_id in sorted(texts):
        if texts[doc_id]:
            keys.setdefault(key(texts[doc_id], name), texts[doc_id])
    store = Store(file)
    try:
        held = store.get(list(keys))
    finally:
        store.close()
    return [(k, text) for k, text in keys.items() if k not in held]


def fill(conn, file: Path, progress=None, pause=None, batch: int = BATCH, known: set[int] | None = None,
         which=None) -> int:
    """Compute the vectors the store lacks for the index's documents, a batch at a time, so no
    query pays for them; ``pause()`` is called before each batch (a server waits there while it
    answers); ``known`` as for ``missing`` (on an error it may hold documents not filled: start
    again with an empty set). Returns how many were computed."""
    import numpy as np

    which = which or current()
    todo = missing(conn, file, known, which)
    if progress:
        progress(0, len(todo))
    store = Store(file)
    try:
        for start in range(0, len(todo), batch):
            if pause:
                pause()
            chunk = todo[start:start + batch]
            made = encode([text for _, text in chunk], which=which).astype(np.float16)
            store.put([(k, made[n].tobytes()) for n, (k, _) in enumerate(chunk)])
            if progress:
                progress(min(start + batch, len(todo)), len(todo))
    finally:
        store.close()
    return len(todo)


# -- a long-lived process keeps one matcher per memory, its model loaded ahead ---------------

_warm: dict[str, Matcher] = {}


def keep_warm(file: Path, which=None) -> Matcher:
    """This process keeps the matcher of the store ``file`` and the encoder ``which`` (``current()``)
    for every search, and loads the encoder now, in the background (the recall server, the MCP
    server): "auto" uses it once loaded."""
    which = which or current()
    held = _warm.get(_warm_key(file, which))
    if held is None:
        held = _warm[_warm_key(file, which)] = Matcher(file, which=which)
        if held.which is not None:
            threading.Thread(target=_load, args=(held.which,), name="sentence-encoder", daemon=True).start()
    return held


def _warm_key(file: Path, which) -> str:
    return f"{file}\0{which.name if which else ''}"


def _load(which) -> None:
    try:
        encoder(which)
    except Exception:       # a broken install: semantic recall says so when asked for, not here
        pass


class _AtHand:
    """A warm matcher asked only for what it has at hand ("auto"): None rather than a wait."""

    def __init__(self, matcher: Matcher):
        self.matcher = matcher

    def meaning(self, conn, text: str) -> "Meaning | None":
        return self.matcher.meaning(conn, text, wait=False)


def mode(memory, asked=None):
    """True, False or "auto": ``asked``, else ``[recall] semantic``."""
    if asked is None:
        asked = memory.config["recall"].get("semantic", AUTO)
    if asked not in (True, False, AUTO):
        from souveraine.errors import ConfigError

        raise ConfigError(f"'recall.semantic' must be true, false or \"auto\", not {asked!r}")
    return asked


def matcher(memory, asked, progress=None) -> "Matcher | _AtHand | None":
    """The matcher ``asked`` for (True, False, "auto", a Matcher, or None for ``[recall] semantic``).
    "auto" is the warm matcher of a long-lived process when it has the model and the vectors at
    hand, else None: a query never waits for the model."""
    if isinstance(asked, Matcher):
        return asked
    asked = mode(memory, asked)
    if not asked:
        return None
    which = current(memory)
    kept = _warm.get(_warm_key(location(memory), which))
    if asked == AUTO:
        return _AtHand(kept) if kept is not None and available(memory) else None
    require(memory)
    if kept is not None:
        return kept
    return Matcher(location(memory), progress, which)


def unchanged(conn) -> tuple:
    """Two numbers that stay the same while nothing is written to the index: SQLite's
    data_version (moved by another connection's commit) and this connection's own changes.
    A few microseconds, where ``state`` counts the documents (20 ms at ten years)."""
    return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes


def state(conn) -> tuple:
    """What the index holds, in a few numbers: its documents, and the files they were read from
    as the index saw them (a file read again has a new size or time). Sub-millisecond."""
    file = next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")
    docs = conn.execute("SELECT count(*), max(id) FROM docs").fetchone()
    files = conn.execute("SELECT count(*), total(size), sum(mtime_ns % 1000000007) FROM files").fetchone()
    return (file, *docs, *files)


def _text(title: str, body: str, previous: str | None = None) -> str:
    text = (f"{title}\n{body}" if title and not body.startswith(title) else body or title).strip()
    if previous and text:
        text = f"{previous.strip()[:PREVIOUS_CHARS]}\n{text}"
    return text[:CHARS]


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


def more_like(meaning: Meaning, best: list[int]):
    """The unit centroid of the vectors of ``best`` (the best hits so far), or None: a second
    query, "more like these". "Which authors has he read?" finds one turn naming an author by
    its words; the turns naming the others are more like that turn than like the question."""
    import numpy as np

    found = [meaning.matrix[meaning.rows[i]] for i in best if i in meaning.rows]
    if not found or meaning.matrix is None:
        return None
    centre = np.mean(found, axis=0)
    norm = float(np.linalg.norm(centre))
    if not norm:
        return None
    return (centre / norm).astype(np.float32)
