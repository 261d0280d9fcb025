"""A `refactor` commit only moves: every file it removes reappears, byte for byte, under a new path.

Checked on blob ids, not on git's rename detection (which guesses, and gives up on
large changes): the blobs removed and the blobs added must be the same multiset.
"""

from collections import Counter

from souveraine.laws.breach import Breach

FIX = "only moves or renames of identical files are a refactor; commit it as 'fix(memory): …' or 'chore(defrag): …' instead"


def breaches(diff: list) -> list[Breach]:
    """``diff``: the snapshot's entries against its first parent."""
    removed = Counter(e.old for e in diff if e.status == "D")
    added = Counter(e.new for e in diff if e.status == "A")
    out = []
    for entry in diff:
        if entry.status in ("M", "T"):
            why = "changes this file's content"
        elif entry.status == "A" and added[entry.new] > removed[entry.new]:
            why = "adds this file with new content"
            added[entry.new] -= 1
        elif entry.status == "D" and removed[entry.old] > added[entry.old]:
            why = "deletes this file without moving it"
            removed[entry.old] -= 1
        else:
            continue
        out.append(Breach(entry.path, "refactor_changes_content", f"{entry.path}: a refactor commit {why}; {FIX}"))
    return out
