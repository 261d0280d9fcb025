"""``--now TIME`` (or $SOUVERAINE_NOW): the clock this process and the hooks it runs go by."""


def fix_now(text: str | None) -> None:
    """``--now TIME`` for this process and the hooks it runs; a bad $SOUVERAINE_NOW is named, not a traceback."""
    import os

    from souveraine.errors import UsageError
    from souveraine.store.clock import parse_moment

    given = text if text is not None else os.environ.get("SOUVERAINE_NOW")
    if not given:
        return
    what = "--now" if text is not None else "SOUVERAINE_NOW"
    try:
        moment = parse_moment(given)
    except ValueError:
        raise UsageError(f"{what} is not an ISO 8601 time ({given!r}); write it like 2026-11-30T14:32") from None
    os.environ["SOUVERAINE_NOW"] = moment.isoformat()
