"""Turns as parts of a conversation: an answer found through its question, hits shown as exchanges.

"How often does he work out with his family?" matches the question asked before the answer
("Three times a week; it keeps us on track.") far better than the answer itself. So the turn
right after a matching turn that asks something (holds a question mark), said by the other
speaker in the same session, inherits part of that turn's match (``ANSWER_SHARE``, measured
in bench/quality_recall.py). Only a question passes its match on: the reply to a statement
("Sounds great!") is rarely what the statement's words were looking for, and letting every
reply inherit filled the top ten with them (bench/recall_set.py, dev half: all R@10 0.410
with every turn passing its match on, 0.460 with questions only).

The other way round too: a reply often names what the turn before it told ("That's a huge
Christmas." after "we did 212 pompes in the end"), so a turn inherits part of the match of
the reply that follows it (``PROMPT_SHARE``). And a turn that ends asking something holds
the question, not what happened: it ranks at ``ASKING`` of its score, its answer inheriting
its match as before.
"""

from souveraine.record import Record

ANSWER_SHARE = 0.5      # the default of rank.Ranking.answer_share
PROMPT_SHARE = 0.5      # … of rank.Ranking.prompt_share: a turn inherits this share of its reply's match
ASKING = 0.5            # … of rank.Ranking.asking: a turn that ends asking something scores this share
QUESTION_MARKS = ("?", "？")
SPEAKERS = frozenset({"user", "assistant"})


class Turn(Record):
    __slots__ = _fields = ("id", "path", "session", "role", "kind")

    def __init__(self, id: int, path: str, session: str, role: str, kind: str):
        self.id, self.path, self.session, self.role, self.kind = id, path, session, role, kind


def answers(conn, found: dict[int, "Turn"], asking: bool = False) -> dict[int, int]:
    """For each turn in ``found``, the id of the turn that answers it (the next one in its file,
    same session, the other speaker), when there is one; with ``asking``, only for the turns
    that ask something (hold a question mark)."""
    asked = [t.id for t in found.values() if t.kind == "turn" and t.role in SPEAKERS]
    if asked and asking:
        marks = ", ".join("?" * len(asked))
        asked = [row[0] for row in conn.execute(
            f"SELECT id FROM docs WHERE id IN ({marks}) AND (instr(body, '?') OR instr(body, '？') OR instr(body, '¿'))", asked)]
    if not asked:
        return {}
    marks = ", ".join("?" * len(asked))
    following = {row[0]: Turn(*row) for row in conn.execute(
        f"SELECT id, path, session, role, kind FROM docs WHERE id IN ({marks})", [i + 1 for i in asked])}
    out = {}
    for turn_id in asked:
        turn, after = found[turn_id], following.get(turn_id + 1)
        if (after and after.kind == "turn" and after.path == turn.path and after.session == turn.session
                and after.role in SPEAKERS and after.role != turn.role):
            out[turn_id] = after.id
    return out


def prompts(conn, found: dict[int, "Turn"]) -> dict[int, int]:
    """For each turn in ``found``, the turn it replies to (the one before it in its file, same
    session, the other speaker), when there is one."""
    ids = [t.id for t in found.values() if t.kind == "turn" and t.role in SPEAKERS]
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    before = {row[0]: Turn(*row) for row in conn.execute(
        f"SELECT id, path, session, role, kind FROM docs WHERE id IN ({marks})", [i - 1 for i in ids])}
    out = {}
    for turn_id in ids:
        turn, prior = found[turn_id], before.get(turn_id - 1)
        if (prior and prior.kind == "turn" and prior.path == turn.path and prior.session == turn.session
                and prior.role in SPEAKERS and prior.role != turn.role):
            out[turn_id] = prior.id
    return out


def asks(text: str | None) -> bool:
    """Whether a turn ends asking something."""
    return (text or "").rstrip().endswith(QUESTION_MARKS)


def exchanges(conn, hits: list[tuple[int, str, str]], around: int) -> dict[int, list[dict]]:
    """The ``around`` turns before and after each hit (id, path, session) in its session, in
    order, the hit itself marked."""
    out = {}
    for doc_id, path, session in hits:
        rows = conn.execute(
            "SELECT id, block, role, at, body FROM docs WHERE path = ? AND session = ? AND kind = 'turn'"
            " AND id BETWEEN ? AND ? ORDER BY line", (path, session, doc_id - around, doc_id + around)).fetchall()
        out[doc_id] = [{"block": block, "role": role, "date": at, "text": body, "hit": row_id == doc_id}
                       for row_id, block, role, at, body in rows]
    return out


ADDRESSED_MIN = 3       # times one speaker addresses a name before it reads as the other's
ADDRESSED_SHARE = 0.4   # … while the other speaker writes it at most this share as often
ADDRESSED_SAMPLE = 400  # newest mentions looked at: the cost stays the same at ten years
# A name spoken to: alone before , ! ? or the end, after the start, a comma or a greeting.
_GREETING = r"(?:hi|hello|hey|dear|morning|evening|bonjour|bonsoir|salut|hola|ciao|thanks|thank you|welcome|congratulations|sorry)"


def addressed(conn, names: list[str]) -> dict[str, str]:
    """Which of ``names`` (folded, as the ``names`` table holds them) name a speaker of the
    conversations, and which: a name one speaker addresses (“Bonjour Karim.”, “I'm sorry,
    Karim.”) and the other hardly ever writes is the other's own. Such a name in a query
    picks whose turns tell the story rather than words to match: every greeting holds it."""
    import re

    from souveraine.recall.sources import fold

    out = {}
    for name in names:
        rows = conn.execute(
            "SELECT d.role, d.body FROM (SELECT doc FROM names WHERE name = ? ORDER BY doc DESC LIMIT ?) n"
            " JOIN docs d ON d.id = n.doc WHERE d.kind = 'turn'", (name, ADDRESSED_SAMPLE)).fetchall()
        spoken_to = re.compile(rf"(?:^|[,;:.!?]\s*|\b{_GREETING}\s+)(\w+)\s*(?:[,.!?]|$)", re.IGNORECASE)
        # What spoken_to needs and a literal search finds fast: the name before , . ! ? or the end.
        before_stop = re.compile(re.escape(name) + r"\s*(?:[,.!?]|$)")
        written, called = {}, {}
        for role, body in rows:
            written[role] = written.get(role, 0) + 1
            body = body or ""
            if not before_stop.search(body.lower() if body.isascii() else fold(body)):
                continue
            if any(fold(m) == name for m in spoken_to.findall(body)):
                called[role] = called.get(role, 0) + 1
        for writer, other in (("assistant", "user"), ("user", "assistant")):
            if (called.get(writer, 0) >= ADDRESSED_MIN
                    and written.get(other, 0) <= ADDRESSED_SHARE * written.get(writer, 0)):
                out[name] = other
    return out
