"""Surfacing: before the next turn, one thought moves pending → intrusive → sent.

One thought per turn — the most urgent, then the oldest — unless some are critical:
then every critical one, and nothing else. The viewport's bandwidth filters what may
surface (``sensorium.bandwidth``): ``high`` anything due, ``medium`` medium and above,
``low`` (a phone) only urgent ones (high, critical), ``minimal`` nothing but presence. An
item whose due time is still to come (a dated promise) waits, unseen, until then.
What is shown around it differs too (``shown``): ``high`` lists the inbox's other contents,
``medium`` counts them, ``low`` shows the urgent thought alone, ``minimal`` one presence line.
While the being is at work (a unit under way, a live fork, something needing attention) a
printed view also shows that work as its class allows (``around``): at ``high`` the unit
with its chain of phases, each fork with its divergence, the last N+1 pass, the newest
commits and all that needs attention; at ``medium`` the unit, the live forks and what needs
attention at medium urgency or more. An agent's hook takes ``lines`` alone and never pays
for the rest.

A surfaced thought is written to intrusive.md (what is on the agent's mind this turn)
and logged in sent.md with its time and viewport; at the next surfacing the previous
turn's intrusive thoughts leave intrusive.md, delivered. ``peek`` changes nothing.
"""

from dataclasses import dataclass, field, replace

from souveraine.sensorium import bandwidth as classes
from souveraine.store import clock
from souveraine.store.memory import Memory
from souveraine.tempos import inbox
from souveraine.tempos.inbox import INTRUSIVE, PENDING, SENT

BANDWIDTHS = classes.BANDWIDTHS


@dataclass
class Surfacing:
    bandwidth: str
    surfaced: list[inbox.Item] = field(default_factory=list)
    delivered: list[inbox.Item] = field(default_factory=list)   # last turn's, now out of intrusive.md
    waiting: int = 0
    critical_waiting: int = 0
    peek: bool = False
    commit: str | None = None
    rest: list[inbox.Item] = field(default_factory=list)   # what still waits, most urgent first
    at_work: dict = field(default_factory=dict)             # the work a printed view shows (``around``)

    @property
    def lines(self) -> list[str]:
        """What the agent sees: ``[surfacing: urgency: text]`` lines (or presence, on minimal)."""
        if self.bandwidth == "minimal":
            if not self.waiting:
                return []
            critical = f", {self.critical_waiting} critical" if self.critical_waiting else ""
            return [f"[surfacing: presence: {self.waiting} waiting{critical}]"]
        return [f"[surfacing: {item.urgency}: {item.text}]" for item in self.surfaced]

    @property
    def shown(self) -> list[str]:
        """What a viewport of this bandwidth prints: the surfacing, and around it the inbox as the class allows."""
        out = list(self.lines)
        if classes.shows(self.bandwidth, "inbox") and self.rest:
            out.append(f"[inbox: {len(self.rest)} waiting]")
            out += [f"  - {i.urgency}: {i.text}" for i in self.rest[:classes.INBOX_LISTED]]
            if len(self.rest) > classes.INBOX_LISTED:
                out.append(f"  - and {len(self.rest) - classes.INBOX_LISTED} more: souveraine inbox")
        elif self.bandwidth == "medium" and self.rest:
            out.append(f"[inbox: {len(self.rest)} {'more ' if self.surfaced else ''}waiting: souveraine inbox]")
        return out + _work_lines(self.at_work)

    def to_dict(self) -> dict:
        listed = self.rest[:classes.INBOX_LISTED] if classes.shows(self.bandwidth, "inbox") else []
        return {"bandwidth": self.bandwidth, "surfaced": [i.to_dict() for i in self.surfaced],
                "delivered": [i.to_dict() for i in self.delivered], "waiting": self.waiting,
                "critical_waiting": self.critical_waiting, "lines": self.lines, "shown": self.shown,
                "inbox": [i.to_dict() for i in listed], "at_work": self.at_work, "peek": self.peek, "commit": self.commit}


def choose(items: list[inbox.Item], bandwidth: str) -> list[inbox.Item]:
    """The thoughts that surface now, in the order they are shown."""
    if bandwidth == "minimal":
        return []
    now = clock.now()
    eligible = inbox.by_urgency([i for i in items if classes.passes(bandwidth, i.urgency) and i.ripe(now)])
    critical = [i for i in eligible if i.urgency == "critical"]
    return critical or eligible[:1]


def surface(memory: Memory, bandwidth: str = "high", peek: bool = False, around: bool = False) -> Surfacing:
    """Surface the next thought(s); with ``around``, also read the work this class shows."""
    result = Surfacing(classes.check(bandwidth), peek=peek)
    if around:
        result.at_work = at_work(memory, bandwidth)
    if not inbox.enabled(memory):
        return result
    with memory.lock():
        pending, intrusive = inbox.read(memory, PENDING), inbox.read(memory, INTRUSIVE)
        now = clock.now()
        waiting = [i for i in pending.items if i.ripe(now)]
        result.surfaced = choose(waiting, bandwidth)
        result.delivered = intrusive.items
        result.waiting = len(waiting) - len(result.surfaced)
        result.critical_waiting = sum(1 for i in waiting if i.urgency == "critical" and i not in result.surfaced)
        result.rest = [i for i in inbox.by_urgency(waiting) if i not in result.surfaced]
        if peek or not (result.surfaced or result.delivered):
            return result
        ids = {i.id for i in result.surfaced}
        with memory.change(_message(result)) as change:
            if ids:
                change.write(PENDING, pending.text_without(ids))
            change.write(INTRUSIVE, intrusive.text_with(result.surfaced, without={i.id for i in result.delivered}))
            if result.surfaced:
                sent = [replace(i, at=now.replace(tzinfo=None, second=0, microsecond=0), viewport=bandwidth)
                        for i in result.surfaced]
                change.append(SENT, _lead(memory) + "".join(i.render() + "\n" for i in sent))
        result.commit = change.sha
    return result


def at_work(memory: Memory, bandwidth: str) -> dict:
    """The unit, live forks, N+1, commits and attention this class shows — empty while nothing is under way."""
    from souveraine.sensorium import telemetry

    shows = classes.SHOWS[bandwidth]
    if not {"unit", "forks", "attention"} & shows:
        return {}
    live = telemetry.forks(memory, divergence="divergence" in shows) if "forks" in shows else []
    unit = telemetry.unit(memory, chain="chain" in shows) if "unit" in shows else None
    found = {"unit": unit, "forks": live,
             "attention": telemetry.attention(memory, bandwidth, live=live if "forks" in shows else None, inbox=False)}
    if not (unit or live or found["attention"]):
        return {}
    if "n1" in shows:
        found["n1"] = telemetry.n1(memory)
    if "commits" in shows:
        found["commits"] = telemetry.commits(memory)
    return found


def _work_lines(work: dict) -> list[str]:
    from souveraine.sensorium import telemetry

    out = []
    unit = work.get("unit")
    if unit:
        back = f" · back from review {unit['retries']} of {unit['max_retries']}" if unit["retries"] else ""
        out.append(f"[unit: {unit['unit']} · {unit['phase']}{back}]")
        if unit.get("chain"):
            out.append(f"  {telemetry.chain_line(unit['chain'])}")
    for fork in work.get("forks", []):
        drift = f", {fork['divergence']} of {fork['threshold']} lines" if fork.get("divergence") is not None else ""
        out.append(f"[fork: {fork['name']} ({fork['status']}{drift})" + (f" — {fork['task']}]" if fork["task"] else "]"))
    n1 = work.get("n1")
    if n1:
        said = f"{n1['sha']} {n1['subject']}" if n1["sha"] else "nothing committed yet"
        out.append(f"[n+1: {said}" + (f"; {n1['spooled']} in the spool]" if n1["spooled"] else "]"))
    if work.get("commits"):
        out.append(f"[commits: {len(work['commits'])} newest]")
        out += [f"  - {c['sha']} {c['subject']}" for c in work["commits"]]
    out += [f"[attention: {a['urgency']}: {a['what']} — {a['how']}]" for a in work.get("attention", [])]
    return out


def _lead(memory: Memory) -> str:
    path = memory.path(SENT)
    return "\n" if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n") else ""


def _message(result: Surfacing) -> str:
    n = len(result.surfaced)
    if n:
        return f"chore(inbox): surface {n} thought{'s' if n > 1 else ''} ({result.bandwidth})"
    return f"chore(inbox): clear {len(result.delivered)} delivered thought{'s' if len(result.delivered) > 1 else ''}"
