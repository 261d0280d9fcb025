"""Append-only files only grow: the committed bytes stay a prefix; the file is never deleted or moved.

Raw experience (the journal, the inner voice, the chronicle, the delivery log, unit
reports) is never rewritten: a mistake is answered by a correction entry appended after
it. A line count is no proof (a line inserted in the middle adds lines too): the old
blob must be a byte prefix of the new one.

A merge may join entries appended on two sides: it keeps every entry each side holds,
whole and in that side's order, and may set the other side's between them (the merge
driver orders them by time). Nothing else: no entry dropped, cut or changed.
"""

from functools import lru_cache

from souveraine.language import patterns
from souveraine.laws import entries
from souveraine.laws.keys import common_prefix
from souveraine.laws.breach import Breach
from souveraine.laws.snapshot import Snapshot
from souveraine.store import layout

FIX = "restore the committed text and append a correction entry instead"
KEEP = "keep both sides' entries whole, one after the other"


@lru_cache(maxsize=64)
def globs(config_toml: bytes | None) -> tuple[str, ...]:
    """The extra append-only globs of a souveraine.toml (`[laws] append_only`); () when none or unreadable."""
    if not config_toml or b"append_only" not in config_toml:
        return ()
    import tomllib

    try:
        value = tomllib.loads(config_toml.decode("utf-8")).get("laws", {}).get("append_only", [])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
        return ()
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def paths(snapshot: Snapshot, extra: tuple[str, ...]) -> list[str]:
    """The append-only paths this snapshot touches."""
    seen = dict.fromkeys(e.path for diff in snapshot.diffs for e in diff)
    matches = _matcher(extra)
    return [p for p in seen if matches(p)]


@lru_cache(maxsize=64)
def _matcher(extra: tuple[str, ...]):
    """layout.is_append_only as one expression: a replay asks it of every path every commit changes."""
    import re

    return patterns.compile("|".join(f"(?:{layout._compile(g).pattern})" for g in (*layout.APPEND_ONLY, *extra))).fullmatch


def breaches(snapshot: Snapshot, extra: tuple[str, ...]) -> list[Breach]:
    touched = paths(snapshot, extra)
    if not touched:
        return []
    if snapshot.is_merge:
        return [b for path in touched for b in _merged(snapshot, path)]
    diff = snapshot.diffs[0]
    added = {e.new: e.path for e in diff if e.status == "A"}
    out = []
    for entry in diff:
        if entry.path not in touched:
            continue
        if entry.new is None:
            out.append(_removed(entry.path, added.get(entry.old)))
        elif entry.old is not None:
            new = snapshot.repo.blob(entry.new) or b""
            if not snapshot.repo.grows(entry.old, new):   # the old text read only for the breach's words
                out.append(rewrite(entry.path, snapshot.repo.blob(entry.old) or b"", new))
    return out


def rewrite(path: str, old: bytes, new: bytes, against: str = "committed") -> Breach:
    if old.startswith(new):
        what = f"cuts {len(old) - len(new)} bytes from its end"
    else:
        line = old.count(b"\n", 0, common_prefix(old, new)) + 1
        what = f"changes its {against} text at line {line}"
        if b"\r\n" in new and b"\r\n" not in old:
            what += " (its line endings were rewritten to CRLF)"
    return Breach(path, "append_only_rewrite", f"{path}: append-only, but this change {what}; {FIX}")


def _removed(path: str, moved_to: str | None) -> Breach:
    if moved_to:
        return Breach(path, "append_only_rename",
                      f"{path}: append-only, so it cannot be renamed or moved (to {moved_to}); move it back and link to it instead")
    return Breach(path, "append_only_delete",
                  f"{path}: append-only, so it cannot be deleted; restore it (git checkout HEAD -- {path}) and append a correction entry instead")


def _merged(snapshot: Snapshot, path: str) -> list[Breach]:
    entries = [next((e for e in diff if e.path == path), None) for diff in snapshot.diffs]
    if any(e is not None and e.new is None for e in entries):
        return [_removed(path, None)]
    merged_oid = next(e.new for e in entries if e is not None)
    sides = [e.old for e in entries if e is not None and e.old]
    base_name = f"{snapshot.base}:{path}" if snapshot.base else None
    found = snapshot.repo.read([merged_oid, *sides, *([base_name] if base_name else [])])
    return merge_breaches(path, found[base_name] if base_name else None, [found[s] or b"" for s in sides],
                          found[merged_oid] or b"")


def merge_breaches(path: str, base: bytes | None, sides: list[bytes], merged: bytes) -> list[Breach]:
    """A merge of append-only text keeps every entry each side holds, whole and in each side's
    order; entries may come between them (the other side's, ordered by time), nothing else."""
    lost = _lost(path, base, sides, merged)
    if lost is None:
        return []
    if lost[1] is None:  # its beginning (properties, title) is not the one each side holds
        return [rewrite(path, lost[0], merged, against="shared")]
    return [Breach(path, "append_only_rewrite", f"{path}: append-only, but this merge drops or changes the entry at line "
                                                f"{entries.line_of(lost[0], lost[1])} of what one side holds; {KEEP}")]


def grown(path: str, base: bytes, side: bytes) -> Breach | None:
    """For the merge driver: a side that does not keep the ancestor's entries, whole and in order,
    changed committed text."""
    lost = _lost(path, None, [base], side)
    if lost is None:
        return None
    line = 1 if lost[1] is None else entries.line_of(base, lost[1])
    return Breach(path, "append_only_rewrite", f"{path}: append-only, but one side changes its committed text at line {line}; {FIX}")


def _lost(path: str, base: bytes | None, sides: list[bytes], merged: bytes):
    """(side, its first entry ``merged`` does not keep — None for a changed beginning), or None."""
    split = entries.split([base, merged, *sides], path)
    merged_header, merged_entries = split[1]
    for side, (header, held) in zip(sides, split[2:]):
        if header != merged_header:
            return side, None
        lost = entries.missing(held, merged_entries)
        if lost is not None:
            return side, lost
    return None
