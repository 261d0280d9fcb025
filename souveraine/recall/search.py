"""recall(): the words of a query, its dates and filters, in; the best hits, out.

The one function the CLI, the MCP server and wake call. It brings the index up to date
first (cheap when nothing changed), so what the files hold now is what it finds.
"""

import sqlite3
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta

from souveraine.errors import UsageError
from souveraine.recall import dates, index, query, rank, sources
from souveraine.recall.rank import Ranking
from souveraine.store import clock
from souveraine.store.memory import Memory

MARKS = ("«", "»")
SNIPPET_TOKENS = 24
PERSON_COLUMNS = ("title", "body", "links")


@dataclass
class Hit:
    path: str
    block: str
    kind: str
    tier: str
    date: str | None
    score: float
    snippet: str
    link: str
    role: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Result:
    hits: list[Hit]
    text: str                   # the words searched, once date phrases are cut out
    span: dates.Span
    phrases: list[str] = field(default_factory=list)
    update: index.Update | None = None

    def to_dict(self) -> dict:
        return {"hits": [h.to_dict() for h in self.hits], "text": self.text, "span": self.span.to_dict(),
                "phrases": self.phrases, "index": self.update.to_dict() if self.update else None}


def recall(memory: Memory, text: str = "", *, since: date | str | None = None, until: date | str | None = None,
           tier: str | None = None, within: str | None = None, person: str | None = None, limit: int = 10,
           private: bool = False, recency: bool = True, date_phrases: bool = True,
           ranking: Ranking | None = None) -> Result:
    """The ``limit`` best hits for ``text`` among what the memory holds."""
    today = clock.now().date()
    span = dates.Span(_bound(since, today, "--since", end=False), _bound(until, today, "--until", end=True))
    found = dates.extract(text, today) if date_phrases else dates.Found(dates.Span(), text)
    span = span.narrow(found.span)
    filters = _filters(memory, span, tier, within, private)
    person_match = _person(person)
    if limit < 1:
        raise UsageError(f"--limit must be at least 1, not {limit}")
    ranking = ranking or Ranking(clock.now().timestamp(), memory.config["recall"]["half_life_days"], recency)
    terms = query.terms(found.text)
    if not query.informative(found.text) and (span.since or span.until or person_match):
        terms = []              # "what did I say last week": a listing of last week
    elif span.empty or (found.text and not terms and not person_match):
        return Result([], found.text, span, found.phrases, index.refresh(memory))
    search = Search(terms, person_match, filters, ranking, limit)
    conn, update = index.fresh(memory)
    try:
        hits = search.run(conn)
    except sqlite3.DatabaseError as exc:
        if str(exc).startswith("fts5:"):        # a query we built wrong: a bug to see, not damage
            raise
        conn.close()
        update = index.rebuild(memory)     # corrupt under our feet: a cache, so rebuild it
        conn = index.connect(index.location(memory))
        hits = search.run(conn)
    finally:
        conn.close()
    return Result(hits, found.text, span, found.phrases, update)


@dataclass
class Search:
    terms: list[query.Term]     # none: only filters, newest first
    person: str | None          # a MATCH expression every hit must also satisfy
    filters: tuple[list[str], dict]
    ranking: Ranking
    limit: int

    def run(self, conn) -> list[Hit]:
        kept, window = rank.informative(conn, self.terms)
        rows, match = self._rows(conn, kept, window)
        if not rows and len(kept) < len(self.terms):
            rows, match = self._rows(conn, self.terms, True)    # the rare words found nothing: try them all
        every = query.both(query.expression(self.terms), self.person)
        return _hits(conn, rows, every or match)        # mark every word asked for, scored or not

    def _rows(self, conn, terms: list[query.Term], window: bool) -> tuple[list[tuple], str | None]:
        where, params = self.filters
        params = {**params, **self.ranking.params(), "limit": self.limit}
        boost = Ranking.boost("d")
        newest = "d.at IS NULL, d.at DESC"
        match = query.both(query.expression(terms), self.person)
        if not match:
            return conn.execute(
                f"SELECT d.id, {boost} AS score FROM docs d{' WHERE ' + ' AND '.join(where) if where else ''}"
                f" ORDER BY {newest} LIMIT :limit", params).fetchall(), None
        if window:
            where = [*where, "fts.rowid >= :window"]
            params["window"] = rank.window(conn, match)
        relevance = self.ranking.relevance(index.COLUMNS) if terms else "1.0"
        return conn.execute(
            f"SELECT d.id, {relevance} * {boost} AS score FROM fts JOIN docs d ON d.id = fts.rowid"
            f" WHERE fts MATCH :match{''.join(' AND ' + w for w in where)}"
            f" ORDER BY {'score DESC, d.ts DESC' if terms else newest} LIMIT :limit",
            {**params, "match": match}).fetchall(), match


def _hits(conn, rows: list[tuple], match: str | None) -> list[Hit]:
    if not rows:
        return []
    ids = [row[0] for row in rows]
    marks = ", ".join("?" * len(ids))
    meta = {r[0]: r for r in conn.execute(
        f"SELECT id, path, block, kind, tier, at, role FROM docs WHERE id IN ({marks})", ids)}
    snippets = _snippets(conn, ids, match)
    hits = []
    for doc_id, score in rows:
        _, path, block, kind, tier, at, role = meta[doc_id]
        link = sources.Document(path=path, kind=kind, body="", block=block or "").link
        hits.append(Hit(path, block or "", kind, tier or "", at, float(f"{score:.6g}"),
                        snippets.get(doc_id, ""), link, role or ""))
    return hits


def _snippets(conn, ids: list[int], match: str | None) -> dict[int, str]:
    """The passage that matched, its words marked «…»; the start of the text otherwise."""
    marks = ", ".join("?" * len(ids))
    out = {}
    if match:
        open_, close = MARKS
        # The body, else the title; never the context: that is another turn's words.
        pieces = ", ".join(f"snippet(fts, {i}, '{open_}', '{close}', '…', {SNIPPET_TOKENS})" for i in (1, 0))
        for doc_id, *candidates in conn.execute(
                f"SELECT rowid, {pieces} FROM fts WHERE fts MATCH ? AND rowid IN ({marks})", [match, *ids]):
            out[doc_id] = next((c for c in candidates if open_ in c), None)
    for doc_id, body in conn.execute(f"SELECT id, substr(body, 1, 240) FROM docs WHERE id IN ({marks})", ids):
        if not out.get(doc_id):
            out[doc_id] = body if len(body) < 240 else body.rstrip() + "…"
    return {k: " ".join(v.split()) for k, v in out.items()}


def _filters(memory: Memory, span: dates.Span, tier: str | None, within: str | None,
             private: bool) -> tuple[list[str], dict]:
    where, params = [], {}
    if not private:
        where.append("d.visibility != 'private'")
    if span.since:
        where.append("d.at >= :since")
        params["since"] = span.since.isoformat()
    if span.until:
        where.append("d.at < :until")
        params["until"] = (span.until + timedelta(days=1)).isoformat()
    if tier:
        if tier not in sources.TIERS:
            raise UsageError(f"--tier must be one of {', '.join(sources.TIERS)}, not '{tier}'")
        where.append("d.tier = :tier")
        params["tier"] = tier
    if within and within.strip("./"):
        prefix = memory.rel(memory.path(within.rstrip("/")))
        where.append("(d.path = :within OR substr(d.path, 1, :within_len) = :within_dir)")
        params.update(within=prefix, within_len=len(prefix) + 1, within_dir=prefix + "/")
    return where, params


def _person(name: str | None) -> str | None:
    if name is None:
        return None
    found = query.phrase(name, PERSON_COLUMNS)
    if found is None:
        raise UsageError(f"--person needs a name with letters or digits, not '{name}'")
    return found


def _bound(value, today: date, option: str, end: bool) -> date | None:
    if value is None or isinstance(value, date):
        return value
    found = dates.bound(str(value), today, end)
    if found is None:
        raise UsageError(f"{option} '{value}' is not a date; give 2026-03-14, 2026-03, 2026, or a phrase like 'last week'")
    return found
