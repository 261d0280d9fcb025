"""`.gitattributes`: every path the laws hold append-only is merged by the driver (sync/driver.py).

The list is the laws' own — the Cloister's append-only regions (`store/layout.py`) and the
memory's `[laws] append_only` globs — written as one block between two marker lines, so a
person's own attributes (LFS, text settings) stay as they are. Patterns are anchored at
the root (`/journal/**`), as the laws' globs are. The driver itself is named in the
repository's config by `laws.install.install`: a clone does not copy it.
"""

from souveraine.laws.install import DRIVER
from souveraine.store import layout

FILE = ".gitattributes"
BEGIN = "# souveraine: append-only files merge by keeping both sides' entries, in time order"
END = "# end souveraine"
MESSAGE = "chore(hooks): merge append-only files by their entries"


def block(extra: tuple[str, ...] | list[str] = ()) -> str:
    globs = dict.fromkeys((*layout.APPEND_ONLY, *extra))
    return "\n".join([BEGIN, *(f"{_pattern(g)} merge={DRIVER}" for g in globs), END]) + "\n"


def updated(current: str | None, extra: tuple[str, ...] | list[str] = ()) -> str | None:
    """``current`` (the file's text, None when there is none) with the block as it should be;
    None when it already is."""
    want = block(extra)
    if current is None:
        return want
    if want in current:
        return None
    start = current.find(BEGIN)
    if start < 0:
        return current + ("\n" if current and not current.endswith("\n") else "") + want
    end = current.find(END, start)
    end = len(current) if end < 0 else end + len(END)
    if current[end:end + 1] == "\n":
        end += 1
    return current[:start] + want + current[end:]


def ensure(memory) -> str | None:
    """Bring the memory's .gitattributes up to date, as its own commit; the commit, or None."""
    text = wanted(memory)
    if text is None:
        return None
    with memory.change(MESSAGE) as change:
        change.write(FILE, text)
    return change.sha


def wanted(memory) -> str | None:
    """The .gitattributes text the memory should have, or None when it has it."""
    path = memory.root / FILE
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    return updated(current, tuple(memory.config["laws"]["append_only"]))


def _pattern(glob: str) -> str:
    pattern = "/" + glob.lstrip("/")
    if any(c in pattern for c in ' \t"\\'):
        escaped = pattern.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    return pattern
