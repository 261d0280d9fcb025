"""recall(): the words of a query, its dates and filters, in; the best hits, out.

The one function the CLI, the MCP server and wake call. It brings the index up to date
first (cheap when nothing changed), so what the files hold now is what it finds.

A search runs in two steps. SQLite ranks every match by BM25 × tier × freshness and keeps a
pool of the best (``POOL`` per hit asked for, and as many again from within the query's dates);
then the pool is ranked again here: an answer inherits part of its question's match
(conversation.py), a date in the query raises what was said or told of in that period
(rank.closeness), a derived note and its source turn do not both take a place, and the top k
are spread over conversations (diversity.py).
"""

import math
import re
import sqlite3
import sys
from datetime import date, datetime, timedelta

from souveraine.errors import UsageError
from souveraine.language import questions
from souveraine.recall import conversation, dates, diversity, index, kinds, query, rank, sources
from souveraine.recall.rank import Ranking
from souveraine.record import Record
from souveraine.store import clock
from souveraine.store.memory import Memory

MARKS = ("«", "»")
SNIPPET_TOKENS = 24
PERSON_COLUMNS = ("title", "body", "links")
POOL = 8                # candidates SQLite hands over per hit asked for (at least MIN_POOL)
MIN_POOL = 80
NAME_CAP = 5000         # a "name" more often written than this is a common word after all
DEEP_POOL = 2000        # matches looked through for those telling of the query's dates
PERIOD_ROOM = 3         # a period holding more turns than this per hit asked for is no evidence alone


class Hit(Record):
    __slots__ = _fields = ("path", "block", "kind", "tier", "date", "score", "snippet", "link", "role", "source",
                           "context")

    def __init__(self, path: str, block: str, kind: str, tier: str, date: str | None, score: float, snippet: str,
                 link: str, role: str = "", source: str = "", context: list[dict] | None = None):
        self.path, self.block, self.kind, self.tier, self.date = path, block, kind, tier, date
        self.score, self.snippet, self.link, self.role = score, snippet, link, role
        self.source = source            # a derived note's source turn, as a link
        self.context = context          # with --context: the exchange around a turn

    def to_dict(self) -> dict:
        data = self._asdict()
        if self.context is None:
            del data["context"]
        else:                           # a copy, as dataclasses.asdict made
            data["context"] = [dict(turn) for turn in self.context]
        return data


class Result(Record):
    __slots__ = _fields = ("hits", "text", "span", "phrases", "update", "readings", "anchor")

    def __init__(self, hits: list[Hit], text: str, span: dates.Span, phrases: list[str] | None = None,
                 update: index.Update | None = None, readings: list[dates.Reading] | None = None, anchor: str = ""):
        self.hits = hits
        self.text = text                # the words searched, once date phrases are cut out
        self.span = span                # the period the query's dates name (evidence, not a filter)
        self.phrases = [] if phrases is None else phrases
        self.update = update
        self.readings = [] if readings is None else readings
        self.anchor = anchor            # what relative dates counted from, in words

    def to_dict(self) -> dict:
        return {"hits": [h.to_dict() for h in self.hits], "text": self.text, "span": self.span.to_dict(),
                "phrases": self.phrases, "dates": [r.to_dict() for r in self.readings], "anchor": self.anchor,
                "index": self.update.to_dict() if self.update else None}


def recall(memory: Memory, text: str = "", *, since: date | str | None = None, until: date | str | None = None,
           tier: str | None = None, within: str | None = None, person: str | None = None, limit: int = 10,
           private: bool = False, recency: bool = True, date_phrases: bool = True,
           ranking: Ranking | None = None, now: datetime | date | str | None = None, context: int = 0,
           every: bool = False, semantic=None, progress=None) -> Result:
    """The ``limit`` best hits for ``text`` among what the memory holds.

    Dates in ``text`` rank, never filter; ``since``/``until`` filter. Relative dates and dates
    without a year count from ``now``, else from the memory's latest turn. ``context`` adds
    that many turns before and after each turn hit; ``every`` lets a derived note and its
    source turn both take a place. ``semantic`` (True, or a ``semantic.Matcher``) adds the
    documents most like the query in meaning (the optional sentence encoder); None reads
    ``[recall] semantic`` from the config; ``progress(done, total)`` is told while documents
    new to it are encoded.
    """
    if limit < 1:
        raise UsageError(f"--limit must be at least 1, not {limit}")
    if context < 0:
        raise UsageError(f"--context must be 0 or more, not {context}")
    person_match = _person(person)
    given = _moment(now)
    conn, update = index.fresh(memory)
    try:
        matcher = _matcher(memory, semantic, progress)     # after the index: its folder keeps the checked config
        try:
            return _search(conn, memory, update, text, since, until, tier, within, person_match, limit, private,
                           recency, date_phrases, ranking, given, context, every, matcher)
        except sqlite3.DatabaseError as exc:
            if str(exc).startswith("fts5:"):        # a query we built wrong: a bug to see, not damage
                raise
            conn.close()
            update = index.rebuild(memory)     # corrupt under our feet: a cache, so rebuild it
            conn = index.connect(index.location(memory))
            return _search(conn, memory, update, text, since, until, tier, within, person_match, limit, private,
                           recency, date_phrases, ranking, given, context, every, matcher)
    finally:
        conn.close()


def _search(conn, memory, update, text, since, until, tier, within, person_match, limit, private, recency,
            date_phrases, ranking, given, context, every, matcher=None) -> Result:
    moment, anchor = _anchor(conn, given)
    today = moment.date()
    hard = dates.Span(_bound(since, today, "--since", end=False), _bound(until, today, "--until", end=True))
    found = dates.extract(text, today, anchor) if date_phrases else dates.Found(dates.Span(), text)
    filters = _filters(memory, hard, tier, within, private)
    ranking = ranking or Ranking(moment.timestamp(), memory.config["recall"]["half_life_days"], recency)
    terms = query.terms(found.text)
    if ranking.inflections:
        terms = query.inflected(terms)
    if found.span.empty:            # phrases that contradict each other rank nothing
        found = dates.Found(dates.Span(), found.text, found.phrases, found.readings)
    result = Result([], found.text, found.span, found.phrases, update, found.readings, anchor)
    if hard.empty:
        return result
    if not query.informative(found.text) and (not found.span.open or not hard.open or person_match):
        terms = []              # "what did I say last week": a listing of last week
    elif found.text and not terms and not person_match:
        return result
    search = Search(terms, person_match, filters, ranking, limit, found.span, every,
                    kind=questions.asks_for(found.text) if ranking.kind_weight else "")
    if matcher is not None and terms:
        search.meaning = matcher.meaning(conn, found.text)
    result.hits = search.run(conn)
    if len(result.hits) < limit and found.phrases and query.informative(text):
        # The words left once the dates were read found little: the dates' own words may find
        # more ("the 15th", "June"), as plain BM25 would; never "nothing" where it finds something.
        plain = Search(query.terms(text), person_match, filters, ranking, limit - len(result.hits), dates.Span(), every)
        seen = {(h.path, h.block) for h in result.hits}
        result.hits += [h for h in plain.run(conn) if (h.path, h.block) not in seen]
    if context:
        _add_context(conn, result.hits, context)
    return result


class Search(Record):
    __slots__ = _fields = ("terms", "person", "filters", "ranking", "limit", "evidence", "every", "speaker", "meaning",
                           "kind")

    def __init__(self, terms: list[query.Term], person: str | None, filters: tuple[list[str], dict], ranking: Ranking,
                 limit: int, evidence: dates.Span = dates.Span(), every: bool = False, speaker: str | None = None,
                 meaning: "object | None" = None, kind: str = ""):
        self.terms = terms              # none: only filters and dates, in order of time
        self.person = person            # a MATCH expression every hit must also satisfy
        self.filters, self.ranking, self.limit = filters, ranking, limit
        self.evidence = evidence        # the period the query's dates name
        self.every = every              # a derived note beside its source turn
        self.speaker = speaker          # the role a name in the query names (_speaker)
        self.meaning = meaning          # semantic.Meaning: the query's likeness to each document
        self.kind = kind                # what the question asks for: "person", "place" or "" (kinds.py)

    def run(self, conn) -> list[Hit]:
        self._speaker(conn)
        plan = rank.plan(conn, self.terms)
        kept = plan.terms
        match = query.both(query.expression(kept), self.person)
        if not match:
            return _hits(conn, self._listing(conn), None)
        pool = self._pool(conn, kept, match, plan.window, plan)
        named = [t for t in self.terms if len(t.words) == 1 and t.words[0][:1].isupper()]
        _add_names(conn, pool, [*named, *(t for t in plan.dropped if t not in named)], self._room())
        if self.meaning:
            from souveraine.recall import semantic

            meaning, depth = self.meaning, self.ranking.semantic_depth
            # blend raises only the ``depth`` most alike: they are all it needs (with a person, the pool's)
            alike = meaning.of(list(pool)) if self.person else meaning.best(depth, also=list(pool))
            semantic.blend(pool, alike, self.ranking.semantic_weight, depth)
            share = meaning.more if self.ranking.semantic_more is None else self.ranking.semantic_more
            if share:                               # "more like these": what is like the best hits
                more = semantic.more_like(meaning, sorted(pool, key=lambda i: -pool[i])[:semantic.MORE_LIKE])
                if more is not None:
                    semantic.blend(pool, meaning.of(list(pool), more) if self.person
                                   else meaning.best(depth, more, also=list(pool)), share, depth)
        pool = _best(pool, self._room())
        if not pool and len(kept) < len(self.terms):            # the rare words found nothing: try them all
            kept = self.terms
            match = query.both(query.expression(kept), self.person)
            pool = self._pool(conn, kept, match, True)
        every = query.both(query.expression(self.terms), self.person)
        ranked = self._rerank(conn, pool, kept)
        if len(ranked) < self.limit and not self.evidence.open and not self.person:
            taken = {doc_id for doc_id, _ in ranked}        # the words found little: the period fills the rest
            ranked += [row for row in self._listing(conn) if row[0] not in taken][:self.limit - len(ranked)]
        return _hits(conn, ranked, every or match)   # mark every word asked for

    def _room(self) -> int:
        """How many of the best matches the ranking looks at (SQLite's pool, and after the vectors')."""
        return max(MIN_POOL, POOL * self.limit)

    def _speaker(self, conn) -> None:
        """A name in the query that names a speaker ("Which apprentices has Karim trained?")
        is dropped from the words when others remain, and raises that speaker's turns instead."""
        self.speaker = None
        names = {sources.fold(t.words[0]): t for t in self.terms if len(t.words) == 1 and t.words[0][:1].isupper()}
        found = conversation.addressed(conn, list(names)) if names and len(self.terms) > 1 else {}
        if not found or not self.ranking.speaker_weight:
            return
        self.terms = [t for t in self.terms if sources.fold(t.words[0]) not in found or len(t.words) != 1]
        roles = set(found.values())
        self.speaker = roles.pop() if len(roles) == 1 else None

    # -- the pool SQLite ranks -------------------------------------------------------------

    def _pool(self, conn, terms: list[query.Term], match: str, window: bool,
              plan: rank.Plan | None = None) -> dict[int, float]:
        """The best matches' ids and relevance (BM25 alone, no join per match, so the cost is
        FTS5's own); the filters, tier and freshness come after. BM25 is asked as an expression
        SQLite sorts (``ORDER BY relevance``), not as FTS5's ``rank``: the same order, 30 to 45 %
        faster at ten years (FTS5 computes a configured rank twice a row)."""
        where, params = self.filters
        size = self._room()
        relevance = self.ranking.relevance(index.COLUMNS)
        base = f"SELECT rowid, {relevance} AS relevance FROM fts WHERE fts MATCH :match"
        params = {**params, **self.ranking.params(), "match": match, "size": size}
        bounds = ""
        if window:
            bounds = " AND rowid >= :window"
            params["window"] = rank.window(conn, match)
        elif plan and plan.recent:
            bounds = " AND rowid >= :window"
            params["window"] = plan.recent
        narrow = [w for w in where if w != "d.visibility != 'private'"]
        deep = size if self.evidence.open else DEEP_POOL
        if narrow:                  # an explicit filter: SQLite joins, and what it keeps is narrower
            sql = (f"SELECT d.id, {relevance} AS relevance FROM fts JOIN docs d ON d.id = fts.rowid"
                   f" WHERE fts MATCH :match{bounds.replace('rowid', 'fts.rowid')}"
                   f"{''.join(' AND ' + w for w in narrow)} ORDER BY relevance DESC LIMIT :deep")
        else:
            sql = f"{base}{bounds} ORDER BY relevance DESC LIMIT :deep"
        rows = conn.execute(sql, {**params, "deep": deep}).fetchall()
        if plan and plan.recent and plan.rare and not narrow:      # older documents: by their rare words
            older = query.both(query.expression(plan.rare), self.person)
            rows += conn.execute(f"{base} AND rowid < :window ORDER BY relevance DESC LIMIT :size",
                                 {**params, "match": older}).fetchall()
            rows.sort(key=lambda row: -row[1])
        pool = dict(rows[:size])
        if not self.evidence.open:
            pool.update(self._within_pool(conn, base, params, rows))
            if self.ranking.period_floor and pool:
                floor = self.ranking.period_floor * max(pool.values())
                for doc_id in self._period(conn, PERIOD_ROOM * self.limit):
                    pool.setdefault(doc_id, floor)
        return pool

    def _period(self, conn, room: int) -> list[int]:
        """The turns said in the query's period when it holds few of them (``room`` at most):
        "what broke at the clinic in mid-April?" is answered by "my autoclave failed its test
        this morning", said then, which shares no word with it."""
        where, params = self.filters
        clauses, extra = [*where, "+d.kind = 'turn'"], {}      # "+": searched by its time (docs_at)
        if self.evidence.since:
            clauses.append("d.at >= :ev_since")
            extra["ev_since"] = self.evidence.since.isoformat()
        if self.evidence.until:
            clauses.append("d.at < :ev_after")
            extra["ev_after"] = (self.evidence.until + timedelta(days=1)).isoformat()
        rows = conn.execute(f"SELECT d.id FROM docs d WHERE {' AND '.join(clauses)} LIMIT :room",
                            {**params, **extra, "room": room + 1}).fetchall()
        return [] if len(rows) > room else [r[0] for r in rows]

    def _within_pool(self, conn, base: str, params: dict, deep: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The best matches said in the period (a run of ids, since they grow with time: FTS5
        seeks to it) or telling of it (found among the deeper pool; a rowid list would make
        FTS5 run the query once per id)."""
        said, told, extra = [], [], {}
        if self.evidence.since:
            said.append("ts >= :ev_since")
            told.append("until >= :ev_since")
            extra["ev_since"] = self.evidence.since.isoformat()
        if self.evidence.until:
            said.append("ts < :ev_after")
            told.append("since <= :ev_until")
            extra.update(ev_after=(self.evidence.until + timedelta(days=1)).isoformat(),
                         ev_until=self.evidence.until.isoformat())
        low, high = conn.execute(              # turns: their ids follow their time (notes' need not)
            f"SELECT min(id), max(id) FROM docs WHERE kind = 'turn' AND {' AND '.join(said)}",
            {k: _stamp(v) for k, v in extra.items() if k in ("ev_since", "ev_after")}).fetchone()
        rows = []
        if low is not None:
            rows += conn.execute(f"{base} AND rowid BETWEEN :low AND :high ORDER BY relevance DESC LIMIT :size",
                                 {**params, "low": low, "high": high}).fetchall()
        found = [doc_id for doc_id, _ in deep]
        marks = ", ".join("?" * len(found))
        telling = {r[0] for r in conn.execute(
            f"SELECT doc FROM mentions WHERE doc IN ({marks}) AND {' AND '.join(told).replace(':ev_since', '?').replace(':ev_until', '?')}",
            [*found, *[extra[k] for k in ("ev_since", "ev_until") if k in extra]])} if found else set()
        return rows + [row for row in deep if row[0] in telling][:params["size"]]

    def _listing(self, conn) -> list[tuple[int, float]]:
        """No words to rank by: what the period holds, newest first, then what lies nearest it."""
        where, params = self.filters
        params = {**params, **self.ranking.params(), "limit": self.limit}
        clauses = list(where)
        if not self.evidence.open:
            within, extra = _within(self.evidence)
            clauses.append(within)
            params.update(extra)
        rows = conn.execute(
            f"SELECT d.id, {Ranking.boost('d')} AS score FROM docs d{' WHERE ' + ' AND '.join(clauses) if clauses else ''}"
            f" ORDER BY d.at IS NULL, d.at DESC LIMIT :limit", params).fetchall()
        if len(rows) >= self.limit or self.evidence.open:
            return rows
        return rows + self._nearest(conn, {r[0] for r in rows}, self.limit - len(rows))

    def _nearest(self, conn, taken: set[int], room: int) -> list[tuple[int, float]]:
        where, params = self.filters
        params = {**params, **self.ranking.params(), "room": room + len(taken)}
        around = []
        for side, order in ((self.evidence.since, "DESC"), (self.evidence.until, "ASC")):
            if side is None:
                continue
            op = "<" if order == "DESC" else ">="
            clauses = [*where, "d.at IS NOT NULL", f"d.at {op} :edge"]
            edge = side.isoformat() if order == "DESC" else (side + timedelta(days=1)).isoformat()
            around += conn.execute(
                f"SELECT d.id, d.ts, {Ranking.boost('d')} FROM docs d WHERE {' AND '.join(clauses)}"
                f" ORDER BY d.at {order} LIMIT :room", {**params, "edge": edge}).fetchall()
        middle = _middle(self.evidence)
        around.sort(key=lambda r: abs((r[1] or 0) - middle))
        return [(i, score) for i, _, score in around if i not in taken][:room]

    # -- ranking the pool again -------------------------------------------------------------

    def _rerank(self, conn, pool: dict[int, float], terms: list[query.Term]) -> list[tuple[int, float]]:
        if not pool:
            return []
        meta = _meta(conn, pool)
        turns = {i: conversation.Turn(i, m["path"], m["session"], m["role"], m["kind"]) for i, m in meta.items()}
        relevance = dict(pool)
        found = conversation.answers(conn, turns, self.ranking.answers_asked) if self.ranking.answer_share else {}
        for asked, answer in found.items():
            if answer in pool or not self.person:           # an answer must name the person itself
                relevance[answer] = relevance.get(answer, 0.0) + self.ranking.answer_share * pool[asked]
        if self.ranking.prompt_share and not self.person:  # a turn, through the reply that names what it told
            for reply, prior in conversation.prompts(conn, turns).items():
                relevance[prior] = relevance.get(prior, 0.0) + self.ranking.prompt_share * pool[reply]
        meta.update(_meta(conn, [i for i in relevance if i not in meta]))
        meta = {i: m for i, m in meta.items() if _allowed(m, self.filters)}
        told = _told(conn, meta) if not self.evidence.open else {}
        scores = {}
        named = kinds.naming(conn, list(meta), self.kind, {sources.fold(w) for t in self.terms for w in t.words})
        for doc_id, m in meta.items():
            score = relevance[doc_id] * rank.boost(self.ranking, m["tier"], m["decays"], m["ts"])
            if m["kind"] == "turn" and m["asks"]:
                score *= self.ranking.asking
            if doc_id in named:
                score *= 1.0 + self.ranking.kind_weight
            if self.speaker and m["kind"] == "turn" and m["role"] == self.speaker:
                score *= 1.0 + self.ranking.speaker_weight
            if not self.evidence.open:
                said = _day(m["at"])
                score *= 1.0 + self.ranking.date_weight * rank.closeness(self.evidence, said, told.get(doc_id, []))
            scores[doc_id] = score
        if not self.every:
            _one_per_source(scores, meta)
        ordered = sorted(scores, key=lambda i: -scores[i])[:self.limit * diversity.POOL]
        words = _words(conn, terms, ordered)
        vector = self.meaning.vector if self.meaning else (lambda doc_id: None)
        candidates = [diversity.Candidate(i, scores[i], _group(meta[i]), words.get(i, frozenset()), vector(i))
                      for i in ordered]         # all that select looks at: its pool is these, in this order
        return [(c.id, c.score) for c in diversity.select(candidates, self.limit, self.ranking.diversity,
                                                          self.ranking.diversity_words,
                                                          self.ranking.semantic_diversity)]


def _matcher(memory: Memory, semantic, progress=None):
    """The sentence-vector matcher asked for (by argument, else by config), or None."""
    asked = memory.config["recall"].get("semantic", False) if semantic is None else semantic
    if asked is False or (asked == "auto" and "souveraine.recall.semantic" not in sys.modules):
        return None             # nothing of semantic.py is imported ("auto": a warm process has it already)
    from souveraine.recall import semantic as vectors

    return vectors.matcher(memory, semantic, progress)


def _add_names(conn, pool: dict[int, float], dropped: list[query.Term], size: int) -> None:
    """A capitalised word, or one dropped as too common once stemmed, may be a name that
    Porter mangled ("Inès" is stemmed "in", a word of every turn): the documents naming it
    whole score as a rare word would (its IDF among the documents)."""
    top = conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 1
    for term in dropped:
        if len(term.words) != 1:
            continue
        name = sources.fold(term.words[0])
        count = conn.execute("SELECT count(*) FROM (SELECT 1 FROM names WHERE name = ? LIMIT ?)",
                             (name, NAME_CAP)).fetchone()[0]
        if not count or count >= NAME_CAP:
            continue
        weight = math.log(top / count)
        for (doc_id,) in conn.execute("SELECT doc FROM names WHERE name = ? ORDER BY doc DESC LIMIT ?", (name, size)):
            pool[doc_id] = pool.get(doc_id, 0.0) + weight


def _within(span: dates.Span) -> tuple[str, dict]:
    """Said within the period, or naming a day in it."""
    said, told, params = [], [], {}
    if span.since:
        said.append("d.at >= :ev_since")
        told.append("until >= :ev_since")
        params["ev_since"] = span.since.isoformat()
    if span.until:
        said.append("d.at < :ev_after")
        told.append("since <= :ev_until")
        params.update(ev_after=(span.until + timedelta(days=1)).isoformat(), ev_until=span.until.isoformat())
    return (f"(({' AND '.join(said)}) OR d.id IN (SELECT doc FROM mentions WHERE {' AND '.join(told)}))", params)


def _stamp(day: str) -> float:
    """Midnight of an ISO day, local time, as POSIX seconds (how ``docs.ts`` counts)."""
    return datetime.fromisoformat(day).timestamp()


def _middle(span: dates.Span) -> float:
    days = [d for d in (span.since, span.until) if d]
    mid = days[0] + (days[-1] - days[0]) / 2
    return datetime.combine(mid, datetime.min.time()).timestamp()


def _best(pool: dict[int, float], size: int) -> dict[int, float]:
    """The ``size`` most relevant of the pool: what words and meaning found beyond them is never
    ranked high enough to matter (on the dev conversations and the planted facts, dropping them
    changed no figure) and costs the ranking that follows as much as the rest."""
    if len(pool) <= size:
        return pool
    import heapq

    return dict(heapq.nlargest(size, pool.items(), key=lambda item: item[1]))


def _meta(conn, ids) -> dict[int, dict]:
    ids = list(ids)
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    names = ("id", "path", "block", "kind", "tier", "at", "ts", "decays", "visibility", "role", "session", "source")
    return {row[0]: {**dict(zip(names, row)), "asks": conversation.asks(row[-1])} for row in conn.execute(
        f"SELECT {', '.join(names)}, substr(rtrim(body), -1) FROM docs WHERE id IN ({marks})", ids)}


def _allowed(m: dict, filters: tuple[list[str], dict]) -> bool:
    """Whether an answer found through its question passes the filters its question passed in SQL."""
    _, params = filters
    if m["visibility"] == "private" and "d.visibility != 'private'" in filters[0]:
        return False
    at = m["at"] or ""
    if "since" in params and not (at and at >= params["since"]):
        return False
    if "until" in params and not (at and at < params["until"]):
        return False
    if "tier" in params and m["tier"] != params["tier"]:
        return False
    if "within" in params and not (m["path"] == params["within"] or m["path"].startswith(params["within_dir"])):
        return False
    return True


def _told(conn, meta: dict[int, dict]) -> dict[int, list[tuple[date, date]]]:
    ids = list(meta)
    marks = ", ".join("?" * len(ids))
    out: dict[int, list] = {}
    for doc, since, until in conn.execute(f"SELECT doc, since, until FROM mentions WHERE doc IN ({marks})", ids):
        out.setdefault(doc, []).append((date.fromisoformat(since), date.fromisoformat(until)))
    return out


def _one_per_source(scores: dict[int, float], meta: dict[int, dict]) -> None:
    """A derived note and its source turn (or two notes of one source) keep one place: the better."""
    by_turn = {f"{m['path']}#{m['block']}": i for i, m in meta.items() if m["kind"] == "turn"}
    best: dict[str, int] = {}
    for doc_id, m in sorted(meta.items(), key=lambda item: -scores.get(item[0], 0.0)):
        if not m["source"] or doc_id not in scores:
            continue
        rival = best.get(m["source"], by_turn.get(m["source"]))
        if rival is not None and rival in scores and scores[rival] >= scores[doc_id]:
            del scores[doc_id]
            continue
        if rival is not None:
            scores.pop(rival, None)
        best[m["source"]] = doc_id


def _group(m: dict) -> str:
    if m["kind"] == "turn":
        return f"{m['path']}\0{m['session']}"
    return m["source"].split("#", 1)[0] if m["source"] else m["path"]


def _words(conn, terms: list[query.Term], ids: list[int]) -> dict[int, frozenset]:
    """Which of the query's terms each document holds in its own words (not its context),
    read from its text: a term counts where a word shares its first five letters (a stem
    is near enough to tell two hits apart)."""
    if len(terms) < 2 or not ids:
        return {}
    wanted = [{_stem(w) for w in term.words} for term in terms]
    marks = ", ".join("?" * len(ids))
    out = {}
    for doc_id, title, body in conn.execute(f"SELECT id, title, body FROM docs WHERE id IN ({marks})", ids):
        held = {_stem(w) for w in query.words(f"{title or ''} {body or ''}")}
        out[doc_id] = frozenset(n for n, stems in enumerate(wanted) if stems <= held)
    return out


def _stem(word: str) -> str:
    return word.lower()[:5]


def _day(at: str | None) -> date | None:
    return date.fromisoformat(at[:10]) if at else None


def _anchor(conn, given: datetime | None) -> tuple[datetime, str]:
    """What relative dates count from: ``--now``, else the memory's latest turn, else the clock."""
    if given is not None:
        return given, "--now"
    row = conn.execute("SELECT max(ts) FROM docs WHERE kind = 'turn'").fetchone()
    if row and row[0] is not None:
        return datetime.fromtimestamp(row[0]).astimezone(), "the memory's latest turn"
    return clock.now(), "today"


def _moment(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value.astimezone() if isinstance(value, datetime) else None
    if isinstance(value, date):
        return datetime.combine(value, datetime.max.time().replace(microsecond=0)).astimezone()
    text = str(value).strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--now '{value}' is not a date; give 2026-03-14 or 2026-03-14T18:00") from None
    if len(text) == 10:
        moment = moment.replace(hour=23, minute=59, second=59)
    return moment.astimezone()


def _add_context(conn, hits: list[Hit], around: int) -> None:
    ids = {}
    for hit in hits:
        path, block = hit.path, hit.block
        if hit.source:                          # a derived note: the exchange it was written from
            target, block = hit.source[2:-2].split("#^", 1)
            path = target + ".md"
        if not block:
            hit.context = []
            continue
        row = conn.execute("SELECT id, session FROM docs WHERE path = ? AND block = ?", (path, block)).fetchone()
        if row:
            ids[id(hit)] = (row[0], path, row[1])
    shown = conversation.exchanges(conn, list(ids.values()), around)
    for hit in hits:
        if id(hit) in ids:
            hit.context = shown.get(ids[id(hit)][0], [])
        elif hit.context is None:
            hit.context = []


def _hits(conn, rows: list[tuple], match: str | None) -> list[Hit]:
    if not rows:
        return []
    ids = [row[0] for row in rows]
    meta = _meta(conn, ids)
    snippets = _snippets(conn, ids, match)
    hits = []
    for doc_id, score in rows:
        m = meta[doc_id]
        link = sources.Document(path=m["path"], kind=m["kind"], body="", block=m["block"] or "").link
        source = ""
        if m["source"]:
            path, block = m["source"].split("#", 1)
            source = f"[[{path.removesuffix('.md')}#^{block}]]"
        hits.append(Hit(m["path"], m["block"] or "", m["kind"], m["tier"] or "", m["at"], float(f"{score:.6g}"),
                        snippets.get(doc_id, ""), link, m["role"] or "", source))
    return hits


def _snippets(conn, ids: list[int], match: str | None) -> dict[int, str]:
    """The passage that matched, its words marked «…»; the start of the text otherwise."""
    marks = ", ".join("?" * len(ids))
    out = {}
    if match:
        open_, close = MARKS
        scratch, made = _scratch(conn, ids)
        try:
            # The body, else the title; never the context: that is another turn's words.
            pieces = ", ".join(f"snippet(hits, {i}, '{open_}', '{close}', '…', {SNIPPET_TOKENS})" for i in (1, 0))
            for doc_id, *candidates in scratch.execute(f"SELECT rowid, {pieces} FROM hits WHERE hits MATCH ?",
                                                       [match]):
                out[doc_id] = next((c for c in candidates if open_ in c), None)
        finally:
            _idle.append((scratch, made))
    for doc_id, body in conn.execute(f"SELECT id, substr(body, 1, 240) FROM docs WHERE id IN ({marks})", ids):
        if not out.get(doc_id):
            out[doc_id] = body if len(body) < 240 else body.rstrip() + "…"
    return {k: " ".join(v.split()) for k, v in out.items()}


def _scratch(conn, ids: list[int]) -> tuple[sqlite3.Connection, str]:
    """The hits' texts alone in a small FTS5 table (the index's columns and tokenizer) of an
    in-memory database, where their snippets are found: asked of the index, the query would
    walk every match of its words to reach these few (1.7 ms at ten years; 0.4 ms here). Not a
    temp table of ``conn``: what it writes would look like a change to the index. Taken from
    ``_idle`` (one search at a time each); ``_snippets`` gives it back."""
    spec = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'fts'").fetchone()[0]
    tokenizer = re.search(r"tokenize='((?:[^']|'')*)'", spec).group(1)
    try:
        scratch, made = _idle.pop()
    except IndexError:
        scratch, made = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False), ""
    if made != tokenizer:
        scratch.execute("DROP TABLE IF EXISTS hits")
        scratch.execute(f"CREATE VIRTUAL TABLE hits USING fts5({', '.join(index.COLUMNS)}, tokenize='{tokenizer}')")
    rows = conn.execute(f"SELECT id, {', '.join(index.COLUMNS)} FROM texts WHERE id IN ({', '.join('?' * len(ids))})",
                        ids).fetchall()
    scratch.execute("DELETE FROM hits")
    scratch.executemany(f"INSERT INTO hits(rowid, {', '.join(index.COLUMNS)}) VALUES (?, ?, ?, ?, ?)", rows)
    return scratch, tokenizer


_idle: list[tuple[sqlite3.Connection, str]] = []     # scratch databases no search is using, and their tokenizer


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
