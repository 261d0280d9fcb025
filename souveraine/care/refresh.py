"""`refresh`: the quarterly identity refresh (constitution §IX.8) — doctor's audit, and a low
thought asking the being to re-read its persona: is this still me? is this still how I work?

The thought lists what changed since the last refresh, each linked: the memories elevated
(or attested), the drift ledger's new entries, the corrections made (``fix(memory)``
commits, linked to the files they corrected), the people met (new notes in people/).
"Since" is the last refresh's commit — the history decides, not a clock — or the memory's
first commit. Doctor's errors, if any, come as a high thought in the same commit.
"""

import posixpath

from souveraine.store import clock, layout
from souveraine.store.memory import Memory

MARK = "chore(inbox): identity refresh"
LISTED = 5            # links per kind before "and N more"
_NOT_CORRECTIONS = ("fix(memory): doctor ", "fix(memory): restore missing layout files")


def refresh(memory: Memory) -> dict:
    """Audit, then queue the refresh thought (and doctor's errors), in one commit."""
    from souveraine.care.doctor import doctor
    from souveraine.tempos import inbox

    base, since = _last(memory)
    changed = what_changed(memory, base)
    findings = doctor(memory)
    errors = [f for f in findings if f.severity == "error"]
    now = clock.now().replace(tzinfo=None, second=0, microsecond=0)
    items = [inbox.new_item(_thought(since, changed), "low", now)]
    if errors:
        items.append(inbox.new_item(f"The quarterly doctor found {len(errors)} error(s), first: {errors[0].path}: "
                                    f"{errors[0].why} Run 'souveraine doctor' to see them all.", "high", now))
    with memory.change(f"{MARK} since {since}") as change:
        inbox.queue(change, items)
    return {"since": since, "changed": changed, "findings": len(findings), "errors": len(errors),
            "thought": items[0].text, "commit": change.sha}


def what_changed(memory: Memory, base: str) -> dict[str, list[dict]]:
    """Elevations, drift entries, corrections and new people since commit ``base``."""
    return {"elevations": _elevations(memory, base), "drift": _drift(memory, base),
            "corrections": _corrections(memory, base), "people": _people(memory, base)}


def _last(memory: Memory) -> tuple[str, str]:
    """The commit the last refresh made (or the first commit), and its day."""
    done = memory.git("log", "-1", f"--grep=^{MARK}", "--format=%H %cs", check=False)
    if not done.stdout.strip():
        done = memory.git("log", "--max-parents=0", "--format=%H %cs", "-1", check=False)
    sha, _, day = done.stdout.strip().partition(" ")
    return sha, day


def _elevations(memory: Memory, base: str) -> list[dict]:
    from souveraine.identity.catalog import FOLDER, catalog

    touched = set(_names(memory, "diff", "--name-only", base, "HEAD", "--", FOLDER + "/"))
    shelf = catalog(memory).elevated
    return [{"path": f"{FOLDER}/{name}", "tier": info.get("tier", ""), "link": f"[[{FOLDER}/{name[:-3]}]]"}
            for name, info in sorted(shelf.items()) if f"{FOLDER}/{name}" in touched]


def _drift(memory: Memory, base: str) -> list[dict]:
    from souveraine.tempos import ledger

    path = ledger.path("drift")
    before = memory.git("show", f"{base}:{path}", check=False)
    known = {e.id for e in ledger.parse("drift", before.stdout)} if before.returncode == 0 else set()
    return [{"id": e.id, "text": e.text, "link": e.link} for e in ledger.entries(memory, "drift") if e.id not in known]


def _corrections(memory: Memory, base: str) -> list[dict]:
    done = memory.git("log", f"{base}..HEAD", "--grep=^fix(memory)", "--format=%x00%s", "--name-only", check=False)
    out = []
    for block in done.stdout.split("\0")[1:]:
        subject, _, names = block.partition("\n")
        if subject.startswith(_NOT_CORRECTIONS):
            continue
        files = [n for n in names.split("\n") if n.strip().endswith(".md")]
        here = [f for f in files if memory.exists(f)]          # a link only to a file that is still there
        out.append({"subject": subject, "files": files, "link": f"[[{here[0][:-3]}]]" if here else ""})
    return out


def _people(memory: Memory, base: str) -> list[dict]:
    added = _names(memory, "diff", "--name-only", "--diff-filter=A", base, "HEAD", "--", "people/")
    return [{"path": p, "link": f"[[{p[:-3]}]]"} for p in sorted(added)
            if p.endswith(".md") and posixpath.basename(p) != posixpath.basename(layout.PEOPLE_INDEX)]


def _names(memory: Memory, *args: str) -> list[str]:
    done = memory.git(*args, check=False)
    return [line for line in done.stdout.splitlines() if line.strip()] if done.returncode == 0 else []


def _thought(since: str, changed: dict[str, list[dict]]) -> str:
    ask = (f"Identity refresh: re-read [[{layout.PERSONA_IDENTITY[:-3]}|who I am]] and "
           f"[[{layout.PERSONA_PRINCIPLES[:-3]}|my principles]] — is this still me? is this still how I work?")
    kinds = (("elevations", "elevation", "elevations"), ("drift", "drift entry", "drift entries"),
             ("corrections", "correction", "corrections"), ("people", "new person", "new people"))
    said = []
    for key, one, many in kinds:
        items = changed[key]
        if items:
            links = [i["link"] for i in items[:LISTED] if i["link"]]
            more = f", and {len(items) - LISTED} more" if len(items) > LISTED else ""
            listed = f" ({', '.join(links)}{more})" if links else ""
            said.append(f"{len(items)} {one if len(items) == 1 else many}{listed}")
    if not said:
        return f"{ask} Since {since} nothing has changed: no elevation, drift, correction or new person."
    return f"{ask} Since {since}: " + "; ".join(said) + "."
