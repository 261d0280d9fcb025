"""The merge driver for append-only files: both sides' entries kept whole, ordered by time.

Git calls it as `merge.souveraine-append.driver` (`%O %A %B %P`: the ancestor, ours —
where the result goes —, theirs, the path) for every path `.gitattributes` marks
`merge=souveraine-append`, which `sync.attributes` writes from the laws' own list.

Each side must keep the ancestor's entries whole and in order (the law on merges,
`laws.appendonly.grown`); a side that changed committed text is refused with
the law's own message, and the file is left as ours, unmerged. Otherwise the result is
the entries both sides hold, in their order, with each side's new entries set among them
by time, then block id, then bytes: the same bytes whichever side merges. Two different
entries holding one block id are kept both (nothing said is dropped) and named on stderr.
A path the laws do not hold append-only gets git's own text merge (`git merge-file`).
"""

import subprocess
import sys
from pathlib import Path

from souveraine.laws import appendonly, entries
from souveraine.store import layout


class Conflict(Exception):
    """The two sides cannot be merged by the driver; the message says why."""


def main(argv: list[str]) -> int:
    """`%O %A %B %P`: write the merge into %A; 0 when merged, 1 when left to a person."""
    if len(argv) != 4:
        print("souveraine: merge driver: usage: ANCESTOR OURS THEIRS PATH (git passes them)", file=sys.stderr)
        return 2
    ancestor, ours, theirs, path = argv
    if not layout.is_append_only(path, _extra()):
        return _text_merge(ours, ancestor, theirs, path)
    read = [Path(p).read_bytes() for p in (ancestor, ours, theirs)]
    try:
        merged, collisions = merge(read[0] or None, read[1], read[2], path)
    except Conflict as exc:
        print(f"souveraine: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug must leave the file to a person, not half-merged
        print(f"souveraine: {path}: the merge driver failed ({type(exc).__name__}: {exc}); "
              "it is left unmerged, as ours", file=sys.stderr)
        return 1
    Path(ours).write_bytes(merged)
    for ident in collisions:
        print(f"souveraine: {path}: the block id ^{ident} names two different entries, one from each side; "
              "both are kept, and a link to it opens the first", file=sys.stderr)
    return 0


def merge(base: bytes | None, ours: bytes, theirs: bytes, path: str) -> tuple[bytes, list[str]]:
    """The merged bytes and the block ids found on two different entries; raises Conflict."""
    if ours == theirs or base == theirs:
        return ours, []
    if base == ours:
        return theirs, []
    for side in (ours, theirs):
        refused = appendonly.grown(path, base, side) if base else None
        if refused is not None:
            raise Conflict(refused.message)
    _, (head_o, ours_entries), (head_t, theirs_entries) = entries.split([base, ours, theirs], path)
    if head_o != head_t:
        raise Conflict(f"{path}: append-only, and the two sides began it differently (its properties or title); "
                       "merge it by hand, keeping one beginning and both sides' entries")
    woven = weave(ours_entries, theirs_entries, path)
    return head_o + b"".join(e.text for e in woven), collisions(woven)


def weave(ours: list[entries.Entry], theirs: list[entries.Entry], path: str = "") -> list[entries.Entry]:
    """Both sequences in one, each kept in its order: entries they share are met together,
    and between them the entries only one side holds go by (time, block id, bytes), text
    added after an entry first."""
    left, right = _labelled(ours), _labelled(theirs)
    shared = {label for label, _ in left} & {label for label, _ in right}
    out, i, j = [], 0, 0
    while i < len(left) or j < len(right):
        a = left[i] if i < len(left) else None
        b = right[j] if j < len(right) else None
        a_shared = a is not None and a[0] in shared
        b_shared = b is not None and b[0] in shared
        if a_shared and b_shared:
            if a[0] != b[0]:
                raise Conflict(f"{path}: append-only, and the two sides hold the same entries in different orders; "
                               "merge it by hand")
            out.append(a[1])
            i, j = i + 1, j + 1
        elif a is not None and not a_shared and (b is None or b_shared or _first(a[1], b[1])):
            out.append(a[1])
            i += 1
        elif b is not None and not b_shared:
            out.append(b[1])
            j += 1
        else:  # one side is done and the other still holds a shared entry: cannot be
            raise Conflict(f"{path}: append-only, and the two sides hold the same entries in different orders; "
                           "merge it by hand")
    return out


def _first(a: entries.Entry, b: entries.Entry) -> bool:
    """Whether ``a`` goes before ``b``: text added after an entry stays with it, then time, id, bytes."""
    if a.follows != b.follows:
        return a.follows
    return a.key() <= b.key()


def collisions(woven: list[entries.Entry]) -> list[str]:
    seen: dict[str, bytes] = {}
    found = []
    for entry in woven:
        for ident in entries.ids(entry):
            if seen.setdefault(ident, entry.text) != entry.text and ident not in found:
                found.append(ident)
    return found


def _labelled(sequence: list[entries.Entry]) -> list[tuple[tuple[bytes, int], entries.Entry]]:
    """Each entry with its bytes and which occurrence of those bytes it is, so repeats pair up in order."""
    count: dict[bytes, int] = {}
    out = []
    for entry in sequence:
        count[entry.text] = count.get(entry.text, 0) + 1
        out.append(((entry.text, count[entry.text]), entry))
    return out


def _extra() -> tuple[str, ...]:
    """The memory's own append-only globs (git runs a driver at the work tree's root)."""
    try:
        return appendonly.globs(Path("souveraine.toml").read_bytes())
    except OSError:
        return ()


def _text_merge(ours: str, ancestor: str, theirs: str, path: str) -> int:
    done = subprocess.run(["git", "merge-file", "-L", f"{path} (ours)", "-L", f"{path} (base)", "-L", f"{path} (theirs)",
                           ours, ancestor, theirs], capture_output=True)
    return 0 if done.returncode == 0 else 1
