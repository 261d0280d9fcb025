"""Foundational and constitutive memories must verify: the identity engine's integrity check, called per changed memory."""

from collections.abc import Callable

from souveraine.laws.breach import Breach

FOLDER = "memories/"


def applies(path: str) -> bool:
    return path.startswith(FOLDER) and path.endswith(".md")


def breaches(path: str, text: str, read: Callable[[str], str | None]) -> list[Breach]:
    """``read(other_relpath)`` gives another file of the same tree (the index, or the commit)."""
    try:
        from souveraine.identity import integrity
    except ImportError:
        integrity = None
    if integrity is None:
        return []
    return [Breach(path, "witness", problem if problem.startswith(path) else f"{path}: {problem}")
            for problem in integrity.check(path, text, read)]
