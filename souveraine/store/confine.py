"""Never follow a link out of the memory.

A symbolic link inside the memory that leads outside it (a note linked to /etc/passwd, a
folder linked to /etc) is read by nothing: every reader treats it as absent, writers
refuse it (``Memory.path``), and doctor names it. A link to another file of the memory
is followed as before. Checks cost one ``lstat``; a path is resolved only when it is a link.
"""

import os
import stat as stats
from pathlib import Path


def inside(root: Path, path: Path) -> bool:
    """Whether ``path`` (under ``root``, which is resolved) stays inside ``root`` once its links
    are followed. A loop of links does not."""
    try:
        real = Path(path).resolve(strict=False)
    except (OSError, RuntimeError):     # a loop of links
        return False
    return real == root or root in real.parents


def leads_out(root: Path, path: Path) -> bool:
    """Whether ``path`` is a link that leads outside ``root`` (or round in a loop)."""
    try:
        if not stats.S_ISLNK(os.lstat(path).st_mode):
            return False
    except OSError:
        return False
    return not inside(root, path)


def stat(root: Path, path: Path) -> os.stat_result | None:
    """The file's stat, following a link only within ``root``; None when absent or outside."""
    try:
        found = os.lstat(path)
        if stats.S_ISLNK(found.st_mode):
            return os.stat(path) if inside(root, path) else None
        return found
    except OSError:
        return None
