"""Turns as parts of a conversation: an answer found through its question, hits shown as exchanges.

"How often does he work out with his family?" matches the question asked before the answer
("Three times a week; it keeps us on track.") far better than the answer itself. So the turn
right after a matching turn that asks something (holds a question mark), said by the other
speaker in the same session, inherits part of that turn's match (``ANSWER_SHARE``, measured
in bench/quality_recall.py). Only a question passes its match on: the reply to a statement
("Sounds great!") is rarely what the statement's words were looking for, and letting every
reply inherit filled the top ten with them (bench/recall_set.py, dev half: all R@10 0.410
with every turn passing its match on, 0.460 with questions only).
"""

from dataclasses import dataclass

ANSWER_SHARE = 0.5      # the default of rank.Ranking.answer_share
SPEAKERS = frozenset({"user", "assistant"})


@dataclass
class Turn:
    id: int
    path: str
    session: str
    role: str
    kind: str


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
