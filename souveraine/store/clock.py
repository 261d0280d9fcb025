"""The one clock: local, timezone-aware, and settable for replay and tests.

``SOUVERAINE_NOW`` (ISO 8601) fixes "now" for a whole process: scripted conversations,
reproducible benchmarks, and tests that must not depend on the wall clock.
"""

import os
from datetime import date, datetime


def now() -> datetime:
    fixed = os.environ.get("SOUVERAINE_NOW")
    if fixed:
        moment = datetime.fromisoformat(fixed)
        return moment if moment.tzinfo else moment.astimezone()
    return datetime.now().astimezone()


def parse_moment(text: str) -> datetime:
    """An ISO 8601 date or time, local when it names no zone."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.astimezone()


def as_day(value) -> date | None:
    """A date from a property (a date, a datetime, or ISO text); None when it is not one."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None
