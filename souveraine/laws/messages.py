"""Commit messages: Conventional Commits in the memory's vocabulary, and `refactor` means moved only."""

from souveraine.laws.breach import Breach
from souveraine.store import conventions


def breaches(message: str, diff=None, merge: bool = False) -> list[Breach]:
    """What is wrong with ``message``; ``diff`` (a callable giving the entries against the first
    parent) is only asked for when the message says `refactor`. ``merge``: the commit has two
    parents or more (git's "Merge …" is accepted only then: judged by the parents, not the subject)."""
    why = conventions.problem(message, merge)
    if why:
        return [Breach("", "bad_message", why)]
    header = conventions.parse(conventions.clean(message))
    if header is not None and header.type == "refactor" and diff is not None:
        from souveraine.laws import refactor

        return refactor.breaches(diff())
    return []
