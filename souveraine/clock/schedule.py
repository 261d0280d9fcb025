"""The tempos on a clock: which run when, one at a time, and what happens when one fails.

The same jobs serve `schedule run` (APScheduler's BlockingScheduler), `schedule once`
and system cron (`schedule crontab`). A job calls the library, as the CLI does; a failed
job is logged and becomes an inbox item, so a broken nightly run surfaces to the agent.
"""

import logging
import shlex
import sys
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from souveraine.clock import cron
from souveraine.errors import LockTimeout, UsageError
from souveraine.store import clock
from souveraine.store.memory import Memory

LOG = "schedule.log"
logger = logging.getLogger("souveraine.schedule")


@dataclass(frozen=True)
class Tempo:
    name: str
    about: str
    job: Callable[[Memory], dict]
    locks: bool = True      # holds the memory's lock throughout; False: takes it only to write


def _digest(memory: Memory) -> dict:
    from souveraine.care.digest import digest

    return digest(memory)


def _defrag(memory: Memory) -> dict:
    from souveraine.care.defrag import defrag

    return defrag(memory)


def _doctor(memory: Memory) -> dict:
    """An audit; when it finds errors the agent hears of it through the inbox."""
    from souveraine.care.doctor import doctor

    findings = doctor(memory)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        _queue(memory, f"The quarterly doctor found {len(errors)} error(s), first: {errors[0].path}: "
                       f"{errors[0].why} Run 'souveraine doctor' to see them all.")
    return {"findings": len(findings), "errors": len(errors)}


def _learnings(memory: Memory) -> dict:
    from souveraine.care.learnings import consolidate

    return consolidate(memory)


def _refresh(memory: Memory) -> dict:
    from souveraine.care.refresh import refresh

    return refresh(memory)


def _check(memory: Memory) -> dict:
    """Commit what waits in the spool; reflect and archive when their tempo has come; judge the
    commits made since the last verify (a few milliseconds when the tool made them).

    Without holding the lock: a model may take its time, and each tempo takes the lock
    only to write its commit. One that failed lately backs off (tempos.followup)."""
    from souveraine.store import spool
    from souveraine.tempos import archive, followup, reflect

    ran = {}
    if spool.entries(memory):
        ran["spool"] = spool.drain(memory)
    due = [name for name, tempo in (("reflection", reflect), ("archive", archive))
           if tempo.due(memory) and not followup.backing_off(memory, name)]
    if due:
        ran.update(followup.run(memory, due))
    ran["verify"] = _verify(memory)
    return ran


def _verify(memory: Memory) -> dict:
    """The commits since the last verify, judged (laws/verified.py keeps the rest on record);
    a breach not seen before reaches the agent through the inbox."""
    from souveraine.laws import verified, verify

    before = verified.load(memory.root)
    known = {_key(b) for b in before.breaches + before.standing} if before else set()
    report = verify.verify(memory)
    new = [b for b in report.breaches if _key(b) not in known]
    if new:
        _queue(memory, f"verify found {len(new)} new breach(es) of the laws, first: {new[0].message} "
                       "Run 'souveraine verify' to see them all.")
    return {"commits": report.commits, "judged": report.judged, "breaches": len(report.breaches), "new": len(new)}


def _key(breach) -> tuple:
    return breach.path, breach.rule, breach.message


def _sync(memory: Memory) -> dict:
    """Fetch, merge and push with the memory's remote (docs/SYNC.md); quiet when there is none.
    A conflict or a refusal puts the memory back as it was and becomes one inbox item."""
    from souveraine.errors import Refused
    from souveraine.store import git
    from souveraine.sync import sync

    if not git.run(memory.root, "remote").stdout.split():
        return {"skipped": "no remote"}
    try:
        result = sync.sync(memory, stop=False)   # unattended: a conflict leaves the memory as it was
    except Refused as exc:   # a sync a person stopped by hand waits for them
        return {"skipped": exc.message}
    if result.outcome in ("conflict", "refused"):
        from souveraine.tempos import inbox

        if not any(item["text"] == inbox.one_line(result.line()) for item in inbox.items(memory, "pending")):
            _queue(memory, result.line())
    return result.to_dict()


TEMPOS = {t.name: t for t in (
    Tempo("digest", "distil last week's journal into people/ and domains/", _digest),
    Tempo("defrag", "split overgrown notes, merge near-duplicates, mend links", _defrag),
    Tempo("doctor", "audit the memory's health", _doctor),
    Tempo("learnings", "consolidate recurring points of the unit reports into system/project/learnings.md", _learnings),
    Tempo("refresh", "the identity refresh: doctor's audit and 'is this still me?' with what changed", _refresh),
    Tempo("check", "commit what waits in the spool; reflect and archive when they are due; verify new commits",
          _check, locks=False),
    Tempo("sync", "fetch, merge and push with the memory's git remote", _sync, locks=False),
)}


def configured(memory: Memory) -> dict[str, str]:
    """Each tempo switched on in [schedule], with its cron expression (checked)."""
    section = memory.config["schedule"]
    found = {}
    for name in TEMPOS:
        expression = section[name].strip()
        if expression:
            cron.split(expression, f"{memory.root / 'souveraine.toml'}: [schedule] {name}")
            found[name] = expression
    return found


def tempo(name: str) -> Tempo:
    if name not in TEMPOS:
        raise UsageError(f"no tempo '{name}'; known: {', '.join(TEMPOS)}")
    return TEMPOS[name]


def run_job(memory: Memory, name: str, on_busy: str | None = None) -> dict:
    """Run one tempo now, holding the memory's lock; a failure becomes an inbox item."""
    chosen = tempo(name)
    section = memory.config["schedule"]
    busy = on_busy or section["on_busy"]
    wait = section["lock_timeout"] if busy == "wait" else 0
    started = clock.now()
    try:
        if chosen.locks:
            with memory.lock(timeout=wait):
                result = chosen.job(memory)
        else:
            result = chosen.job(memory)
    except LockTimeout:
        logger.info("%s skipped: the memory is busy", name)
        return {"tempo": name, "status": "skipped", "reason": "busy", "at": started.isoformat()}
    except Exception as exc:  # a job's failure must never vanish: log it and tell the agent
        logger.error("%s failed: %s", name, exc)
        _report_failure(memory, name, exc, started)
        return {"tempo": name, "status": "failed", "error": str(exc), "at": started.isoformat()}
    logger.info("%s done", name)
    return {"tempo": name, "status": "done", "result": result, "at": started.isoformat()}


def _report_failure(memory: Memory, name: str, exc: Exception, at: datetime) -> None:
    _queue(memory, f"Scheduled {name} failed at {at:%Y-%m-%d %H:%M}: {exc}. "
                   f"See .souveraine/{LOG}; rerun with 'souveraine schedule once {name}'.")


def _queue(memory: Memory, text: str) -> None:
    from souveraine.tempos import inbox

    try:
        inbox.add(memory, text, urgency="high")
    except Exception as again:  # the inbox itself failing (or off) is logged, not raised
        logger.error("could not queue '%s': %s", text, again)


def next_runs(memory: Memory, now: datetime | None = None) -> list[dict]:
    moment = now or clock.now()
    rows = []
    for name, expression in configured(memory).items():
        fire = cron.trigger(expression, timezone=moment.tzinfo).get_next_fire_time(None, moment)
        rows.append({"tempo": name, "cron": expression, "next": fire.isoformat() if fire else None,
                     "about": TEMPOS[name].about})
    return rows


def scheduler(memory: Memory, blocking: bool = True):
    """An APScheduler scheduler with one job per configured tempo."""
    from apscheduler.schedulers.background import BackgroundScheduler
    from apscheduler.schedulers.blocking import BlockingScheduler

    section = memory.config["schedule"]
    kind = BlockingScheduler if blocking else BackgroundScheduler
    tz = clock.now().tzinfo
    sched = kind(timezone=tz, job_defaults={
        "coalesce": True, "misfire_grace_time": section["misfire_grace"], "max_instances": 1})
    for name, expression in configured(memory).items():
        sched.add_job(run_job, cron.trigger(expression, timezone=tz), args=[memory, name], id=name, name=name)
    return sched


def serve(memory: Memory) -> None:
    """Run the tempos in the foreground until SIGTERM or Ctrl-C."""
    import signal

    setup_logging(memory)
    sched = scheduler(memory)

    def stop(signum, frame):
        logger.info("stopping (signal %s)", signum)
        sched.shutdown(wait=True)

    signal.signal(signal.SIGTERM, stop)
    for row in next_runs(memory):
        logger.info("%s: next at %s (%s)", row["tempo"], row["next"], row["cron"])
    try:
        sched.start()
    except KeyboardInterrupt:
        sched.shutdown(wait=True)
    logger.info("stopped")


def setup_logging(memory: Memory) -> None:
    memory.cache.mkdir(parents=True, exist_ok=True)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in (logging.StreamHandler(sys.stdout), logging.FileHandler(memory.cache / LOG, encoding="utf-8")):
        handler.setFormatter(fmt)
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


def crontab(memory: Memory, python: str = sys.executable) -> list[str]:
    """System-cron lines for the configured tempos: absolute paths, output to the log."""
    from souveraine import resources

    root = shlex.quote(str(memory.root))
    memory.cache.mkdir(parents=True, exist_ok=True)
    log = shlex.quote(str(memory.cache / LOG))
    home = shlex.quote(str(resources.package_dir().parent))
    lines = [f"# Souveraine tempos for {memory.root} (cron weekdays: 0 = Sunday)"]
    for name, expression in configured(memory).items():
        command = f"PYTHONPATH={home} {shlex.quote(python)} -m souveraine --memory {root} schedule once {name}"
        lines.append(f"{expression} {command} >> {log} 2>&1")
    return lines
