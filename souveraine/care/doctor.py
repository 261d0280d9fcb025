"""`doctor`: an audit of the memory's health — each finding says why it matters and the fix.

Checks read the memory and never change it; ``mend`` applies only the safe fixes (fill a
description, reinstall the hooks, restore a skill, mend a link whose new target is certain,
index an orphaned person) in one ``fix(memory): …`` commit.
"""

import posixpath
import re
from dataclasses import dataclass, field
from typing import Callable

from souveraine import resources
from souveraine.care import describe, links, sections
from souveraine.care.survey import Survey, survey
from souveraine.store import clock, git, journal, layout, notes, tokens
from souveraine.store.memory import Memory

ERROR, WARNING, INFO = "error", "warning", "info"
STALE_DAYS = 14          # journal days a synthesis may lag before it is stale
VOLATILE_LINES = 3       # dated, turn-like lines in one system/ note before it is a journal
SKILL_NAMES = ("souveraine", "workflow", "triage")
SYSTEM_EXEMPT = ("system/metacognition/subconscious.md",)   # the inner voice is dated by design
ORPHAN_FOLDERS = ("people/", "domains/", "reference/")


@dataclass
class Finding:
    check: str
    severity: str
    path: str
    why: str
    fix: str
    fixable: bool = False
    data: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"check": self.check, "severity": self.severity, "path": self.path, "why": self.why,
                "fix": self.fix, "fixable": self.fixable, **({"data": self.data} if self.data else {})}


def doctor(memory: Memory, progress: Callable[[int, int], None] | None = None) -> list[Finding]:
    """Every finding, most severe first, then by path."""
    seen = survey(memory, progress)
    found = [finding for check in CHECKS for finding in check(seen)]
    order = {ERROR: 0, WARNING: 1, INFO: 2}
    return sorted(found, key=lambda f: (order[f.severity], f.path, f.check))


# -- the checks ---------------------------------------------------------------------------


def unreadable_frontmatter(seen: Survey) -> list[Finding]:
    found = []
    for path, error in sorted(seen.unreadable.items()):
        problem, _, remedy = error.removeprefix(path + ":").rpartition("; ")
        found.append(Finding("frontmatter", ERROR, path, f"no tool and not Obsidian can read its properties (line {problem})",
                             remedy or "fix the YAML between the '---' lines"))
    return found


def missing_description(seen: Survey) -> list[Finding]:
    found = []
    for path, note in sorted(seen.notes.items()):
        value = note.get("description")
        if isinstance(value, str) and value.strip():
            continue
        if seen.append_only(path):
            found.append(Finding("description", INFO, path, "without a description, wake and recall cannot say what it holds",
                                 "append-only: it cannot be given one in place; leave it"))
        else:
            found.append(Finding("description", WARNING, path, "without a description, wake and recall cannot say what it holds",
                                 "add a 'description' property (doctor --fix writes one from its first sentence)", True))
    return found


def dumping_grounds(seen: Survey) -> list[Finding]:
    limit = seen.memory.config["doctor"]["max_note_bytes"]
    found = []
    for path in sorted(seen.notes):
        if seen.append_only(path) or seen.generated(path):
            continue
        size = len(seen.vault.text(path).encode("utf-8"))
        many = sections.unrelated(seen.body(path))
        if size > limit:
            why = f"{size:,} bytes (over {limit:,}): too much to load whole, too mixed to recall well"
        elif many:
            why = f"{many} sections with almost nothing in common: a dumping ground of unrelated things"
        else:
            continue
        found.append(Finding("dumping-ground", WARNING, path, why, _split_advice(seen, path), data={"bytes": size, "sections": many}))
    return found


def _split_advice(seen: Survey, path: str) -> str:
    from souveraine.care import defrag

    if not defrag.reshapes(seen, path):
        return "move its details to reference/ or people/ by hand (defrag leaves notes here as they are)"
    if len(sections.cut(seen.body(path)).sections) < 2:
        return "give it headings, or split it by hand into notes of one subject each (defrag cuts along headings)"
    return "run 'souveraine defrag' to split it along its headings"


def broken_links(seen: Survey) -> list[Finding]:
    found = []
    renames = None
    for path in sorted(seen.notes):
        if path.startswith(journal.ROOT + "/"):
            continue   # the journal holds words as they were said, brackets and all
        for link in seen.vault.links(path):
            result = seen.vault.resolve(link, path)
            if result.ok or ((seen.append_only(path) or layout.is_memory(path)) and _to_moved_memory(seen, link)):
                continue   # kept as written (a memory's text is hashed): the tools still find it; year_folders says so
            if renames is None:
                renames = moved_files(seen.memory)
            found.append(_link_finding(seen, path, link, result, renames))
    return found


def _link_finding(seen: Survey, path: str, link: links.Link, result: links.Resolution, renames: dict[str, str]) -> Finding:
    frozen = seen.append_only(path)
    data = {"link": link.raw, "at": link.start}
    if result.status == links.AMBIGUOUS:
        return Finding("ambiguous-link", WARNING, path,
                       f"{link.raw} could mean {' or '.join(result.candidates)}; Obsidian would pick one silently",
                       "write the link with its folder, e.g. " + links.wikilink(result.candidates[0], link.anchor), data=data)
    if result.status == links.NO_ANCHOR:
        where = f"block ^{link.block}" if link.block else f"heading '{link.heading}'"
        return Finding("broken-link", WARNING, path, f"{link.raw}: {result.target} has no {where}",
                       f"point the link at a {'block' if link.block else 'heading'} that exists", data=data)
    target = None if frozen else mended_target(seen, link, renames)
    if target:
        return Finding("broken-link", ERROR, path, f"{link.raw} leads nowhere: its note moved to {target}",
                       f"point it at {target} (doctor --fix does)", True, {**data, "target": target})
    return Finding("broken-link", WARNING if frozen else ERROR, path, f"{link.raw} leads nowhere: no note '{link.target}'",
                   "append a correction (append-only note)" if frozen else "create the note, or correct or remove the link", data=data)


def mended_target(seen: Survey, link: links.Link, renames: dict[str, str]) -> str | None:
    """Where a broken link's note went, when that is certain: git saw it move, or one note has its name."""
    name = link.target.strip().lstrip("/")
    for candidate in (name, name + ".md"):
        moved = renames.get(candidate)
        if moved and moved in seen.vault.files:
            return moved
    if "/" in name:
        alone = seen.vault.resolve(links.Link(link.kind, False, posixpath.basename(name), None, None, 0, 0, ""), "")
        if alone.ok:
            return alone.target
    return None


def moved_files(memory: Memory) -> dict[str, str]:
    """Each path git saw renamed, to where it went in the end."""
    done = memory.git("log", "--reverse", "-M", "--diff-filter=R", "--name-status", "--format=", check=False)
    moves: dict[str, str] = {}
    for line in done.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].startswith("R"):
            old, new = parts[1], parts[2]
            for key, value in list(moves.items()):
                if value == old:
                    moves[key] = new
            moves[old] = new
    return moves


def _to_moved_memory(seen: Survey, link: links.Link) -> bool:
    from souveraine.care import years

    return years.moved(seen.memory, link) is not None


def year_folders(seen: Survey) -> list[Finding]:
    """Memories still in memories/ itself, where versions before year folders wrote them (care/years.py)."""
    from souveraine.care import years

    found = []
    flat = years.flat(seen.memory)
    movable = len(years.pending(seen.memory, flat)) if flat else 0
    if flat:
        held = len(flat) - movable
        found.append(Finding("year-folders", WARNING, "memories/",
                             f"{len(flat):,} memories sit in memories/ itself, where versions before year folders wrote "
                             "them: git writes that whole folder again at every commit that adds a memory",
                             "doctor --fix moves each into memories/<year>/ (renames only: every witness stays valid) "
                             "and points the links to them there"
                             + (f"; {held:,} edited and not committed, or with their new place taken, stay until "
                                "that is settled" if held else ""),
                             movable > 0, {"memories": len(flat), "movable": movable}))
    frozen = years.frozen_links(seen.memory)
    if frozen:
        count = sum(frozen.values())
        found.append(Finding("year-folders", INFO, sorted(frozen)[0] if len(frozen) == 1 else "memories/",
                             f"{count:,} link{'s' if count != 1 else ''} in {len(frozen)} append-only "
                             f"note{'s' if len(frozen) != 1 else ''} name memories by the place they had before year "
                             "folders; Obsidian shows them unresolved, while recall, wake and every tool still find them",
                             "append-only notes keep their past as written; leave them", data={"notes": frozen}))
    return found


def orphans(seen: Survey) -> list[Finding]:
    inbound = seen.inbound
    found = []
    for path in sorted(seen.notes):
        if inbound.get(path) or seen.index(path) or seen.generated(path) or seen.append_only(path):
            continue
        if path.startswith(ORPHAN_FOLDERS):
            person = path.startswith("people/") and "people/_index.md" in seen.notes
            found.append(Finding("orphan", WARNING, path, "no note links to it, so it is found only by search",
                                 "link it from its index or a related note" + (" (doctor --fix adds it to people/_index.md)" if person else ""),
                                 person))
        elif layout.region(path) is None and path != "README.md":
            found.append(Finding("orphan", INFO, path, "no note links to it, so it is found only by search",
                                 "link it from a related note if it matters"))
    return found


def system_budget(seen: Survey) -> list[Finding]:
    budget = seen.memory.config["doctor"]["system_token_budget"]
    model = seen.memory.config.model()
    used = sum(tokens.for_model(seen.vault.text(p), model) for p in seen.vault.files if p.startswith("system/") and p.endswith(".md"))
    if used <= budget:
        return []
    return [Finding("system-budget", WARNING, "system/", f"{used:,} tokens (budget {budget:,}): every wake pays for all of it",
                    "move content to reference/ or people/ and keep indexes in system/; 'souveraine archive' compresses",
                    data={"tokens": used, "budget": budget})]


_VOLATILE = re.compile(
    r"^#{1,6}\s+\d{1,2}:\d\d(?::\d\d)?\b"                      # a journal turn's heading
    r"|^\s*(?:[-*+]\s+)?\[?\d{4}-\d\d-\d\d[ T]\d{1,2}:\d\d"     # a timestamped line
    r"|^\s*(?:[-*+]\s+)?\[?\d{1,2}:\d\d(?::\d\d)?\]?\s"          # a time-stamped line
    r"|^\s*(?:[-*+]\s+)?\**(?:user|assistant|human|me|you|ai)\**\s*:"   # a turn of dialogue
    r"|^\^t\d{6}[a-z]",                                         # a journal block id
    re.IGNORECASE | re.MULTILINE)


def volatile_in_system(seen: Survey) -> list[Finding]:
    found = []
    for path in _system_notes(seen):
        hits = len(_VOLATILE.findall(seen.body(path)))
        if hits >= VOLATILE_LINES:
            found.append(Finding("volatile-system", WARNING, path,
                                 f"{hits} dated or turn-like lines: system/ is read at every wake and should hold what stays true",
                                 "leave events to the journal (persist writes them); keep the lasting rule here", data={"lines": hits}))
    return found


def single_people_file(seen: Survey) -> list[Finding]:
    return [Finding("people-file", WARNING, path, "everyone in one file: it grows without bound and each person is hard to find or link",
                    "one note per person in people/<name>.md ('souveraine defrag' splits it along its headings)")
            for path in sorted(seen.notes) if posixpath.basename(path).lower() == "people.md"]


_WORKFLOW_HEADING = re.compile(r"(?:the\s+|our\s+|my\s+)?(?:workflow|process|procedure|steps|checklist|runbook|phases?|how to)\b",
                               re.IGNORECASE)
_WORKFLOW_STEP = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\**(?:phase|step)\s+\d+"
    r"|^\s*\d+[.)]\s+\**[A-Z][A-Z-]{3,}\b"
    r"|\b(?:always|first|then|afterwards)\s+run\b|\bbefore (?:committing|pushing|merging|releasing)\b",
    re.IGNORECASE | re.MULTILINE)


def workflow_in_system(seen: Survey) -> list[Finding]:
    from souveraine.language import markdown

    found = []
    for path in _system_notes(seen):
        body = markdown.without_code(seen.body(path))        # a "# how to build" comment in code is no heading
        steps = len(_WORKFLOW_STEP.findall(body))
        if any(_WORKFLOW_HEADING.match(h.text) for h in markdown.headings(body)) or steps >= 2:
            found.append(Finding("workflow-in-system", WARNING, path,
                                 "workflow steps in system/ are loaded at every wake yet needed only while working",
                                 "move the steps to .skills/<name>/SKILL.md; keep a one-line pointer here"))
    return found


def stale_synthesis(seen: Survey) -> list[Finding]:
    days = journal.days(seen.memory.root)
    if not days:
        return []
    newest = journal.day_of(days[-1])
    dated = [(d, p) for p in seen.notes if p.startswith("system/synthesized/") and (d := clock.as_day(seen.notes[p].get("through")))]
    if not dated:
        return []
    through, path = max(dated)
    lag = (newest - through).days
    if lag <= STALE_DAYS:
        return []
    return [Finding("stale-synthesis", WARNING, path, f"it covers the journal through {through}, {lag} days behind its newest day ({newest})",
                    "run 'souveraine archive' to synthesize what came since", data={"through": str(through), "newest": str(newest)})]


def missing_hooks(seen: Survey) -> list[Finding]:
    from souveraine.laws import install

    missing = [name for name, ok in install.installed(seen.memory.root).items() if not ok]
    if not missing:
        return []
    return [Finding("hooks", ERROR, ".git/hooks", f"{', '.join(missing)} not installed: commits are not checked against the laws",
                    "reinstall them (doctor --fix, or 'souveraine init --force')", True, {"hooks": missing})]


def missing_skills(seen: Survey) -> list[Finding]:
    found = []
    for name in available_skills():
        if not (seen.memory.root / ".skills" / name / "SKILL.md").is_file():
            found.append(Finding("skill", WARNING, f".skills/{name}/SKILL.md", f"the agent has no '{name}' skill to follow",
                                 "restore it from the tool's skills/ (doctor --fix does)", True, {"skill": name}))
    return found


def witnesses(seen: Survey) -> list[Finding]:
    from souveraine.laws.verify import at

    return [Finding("witness", ERROR, b.path or "covenants/", b.message.removeprefix(f"{b.path}: ").rsplit("; ", 1)[0],
                    b.message.rsplit("; ", 1)[-1], data={"rule": b.rule}) for b in at(seen.memory).breaches]


def available_skills() -> list[str]:
    """The skills the tool ships a template for."""
    folder = resources.path("skills")
    return [name for name in SKILL_NAMES if (folder / name / "SKILL.md").is_file()]


def _system_notes(seen: Survey) -> list[str]:
    return [p for p in sorted(seen.notes)
            if p.startswith("system/") and p not in SYSTEM_EXEMPT and not seen.append_only(p) and not seen.generated(p)]


_LEFTOVER_SEVERITY = {"index-lock": ERROR, "ref-lock": ERROR, "change": ERROR, "defrag": ERROR, "integration": ERROR,
                      "operation": WARNING, "staged": WARNING, "worktree": WARNING, "branch": WARNING, "temp": WARNING}


def links_out(seen: Survey) -> list[Finding]:
    """Links that lead out of the memory (or round in a loop): nothing reads them."""
    import os

    found = []
    for path in seen.vault.outside:
        try:
            target = os.readlink(seen.memory.root / path)
        except OSError:
            target = "?"
        found.append(Finding("link-out", WARNING, path, f"a link that leads out of the memory (to {target}), or round "
                             "in a loop: recall, wake and every tempo act as if it were not there",
                             f"remove the link ('rm {path}') or put the file itself in the memory"))
    return found


def crash_leftovers(seen: Survey) -> list[Finding]:
    """What a killed command left (store.repair), and turns waiting in the spool. Looked at
    only while the memory's lock is free: a command holding it may be midway."""
    from souveraine.errors import LockTimeout
    from souveraine.store import repair
    from souveraine.store.lock import locked

    memory = seen.memory
    try:
        with locked(memory.cache / "lock", 0):
            found = repair.find(memory)
    except LockTimeout:
        return [Finding("busy", INFO, ".souveraine/lock", "another command holds the memory's lock, so what a crash "
                        "may have left was not looked at", "run doctor again when it finishes")]
    findings = [Finding(f.kind, _LEFTOVER_SEVERITY.get(f.kind, WARNING), f.path, f.why, f.fix, f.mend is not None)
                for f in found]
    return findings + _spool_findings(memory)


def _spool_findings(memory: Memory) -> list[Finding]:
    from souveraine.store import spool
    from souveraine.tempos.persist import SET_ASIDE_AFTER

    entries = spool.entries(memory)
    stuck = [e for e in entries if e.attempts >= SET_ASIDE_AFTER]
    waiting = len(entries) - len(stuck)
    found = []
    if waiting:
        found.append(Finding("spool", WARNING, ".souveraine/spool/", f"{waiting} exchange(s) kept but not yet committed",
                             "commit them: 'souveraine persist --flush' (doctor --fix does)", True))
    for entry in stuck:
        found.append(Finding("spool", ERROR, f".souveraine/spool/{entry.name}",
                             f"an exchange that failed to be journaled {entry.attempts} times: {entry.record.get('error')}",
                             "mend the cause, then 'souveraine persist --flush --retry'"))
    for path in spool.unreadable(memory):
        found.append(Finding("spool", ERROR, f".souveraine/spool/{path.name}",
                             "a spool file that does not read as an exchange (damaged, or from a newer version)",
                             f"read it and persist its words by hand, then remove {path}"))
    return found


CHECKS = (unreadable_frontmatter, missing_description, dumping_grounds, broken_links, orphans, system_budget,
          volatile_in_system, single_people_file, workflow_in_system, stale_synthesis, missing_hooks, missing_skills,
          witnesses, links_out, crash_leftovers, year_folders)


# -- the safe fixes -----------------------------------------------------------------------


def mend(memory: Memory, progress: Callable[[int, int], None] | None = None) -> dict:
    """Apply every safe fix in one commit, then audit again; returns what was fixed and what remains."""
    from souveraine.store import repair, spool

    with memory.lock():
        repaired = [Finding(f.kind, _LEFTOVER_SEVERITY.get(f.kind, WARNING), f.path, f.why, f.fix, True)
                    for f in repair.mend_all(memory)]
        drained = spool.drain(memory) if spool.entries(memory) else None
        moved = _year_folders(memory, progress)
        fixable = [f for f in doctor(memory) if f.fixable and f.check not in _LEFTOVER_SEVERITY
                   and f.check not in ("spool", "year-folders")]
        sha = None
        if fixable and not git.in_progress(memory.root):   # a merge's owner finishes it first; the findings stay
            with memory.change(_message(fixable)) as change:
                _apply(memory, change, fixable, progress)
            sha = change.sha
        remaining = doctor(memory)
    if drained and drained.get("commit"):
        repaired.append(Finding("spool", WARNING, ".souveraine/spool/", f"{drained['turns']} turn(s) kept in the spool",
                                f"committed in {drained['commit'][:10]}", True))
    return {"fixed": [f.to_dict() for f in repaired + moved + fixable], "commit": sha,
            "findings": [f.to_dict() for f in remaining]}


def _year_folders(memory: Memory, progress) -> list[Finding]:
    """Memories into their year folders and links after them, in their own commits, first:
    the links then resolve for every other check."""
    from souveraine.care import years

    if git.in_progress(memory.root) or not (years.pending(memory) or years.stale_links(memory)):
        return []
    done = years.migrate(memory, progress)
    out = []
    if done["moved"]:
        out.append(Finding("year-folders", WARNING, "memories/", f"{done['moved']:,} memories in memories/ itself",
                           f"moved into their year folders in {', '.join(c[:10] for c in done['commits'])}", True,
                           {"memories": done["moved"], "commits": done["commits"]}))
    if done["links"]:
        out.append(Finding("year-folders", WARNING, "memories/", f"{done['links']:,} links to memories' old places",
                           f"pointed at their year folders in {done['fix_commit'][:10]}", True,
                           {"links": done["links"], "commit": done["fix_commit"]}))
    return out


def _apply(memory: Memory, change, fixable: list[Finding], progress) -> None:
    from souveraine.laws import install

    if any(f.check == "hooks" for f in fixable):
        install.install(memory.root)
    for f in fixable:
        if f.check == "skill":
            _restore_skill(memory, change, f.data["skill"])
    by_note: dict[str, list[Finding]] = {}
    for f in fixable:
        if f.check in ("description", "broken-link"):
            by_note.setdefault(f.path, []).append(f)
    people = [f.path for f in fixable if f.check == "orphan"]
    for n, (path, found) in enumerate(sorted(by_note.items()), 1):
        change.write(path, _mended_text(memory.read_text(path), path, found))
        if progress:
            progress(n, len(by_note))
    if people:
        _index_people(memory, change, people)


def _mended_text(text: str, path: str, found: list[Finding]) -> str:
    targets = {f.data["at"]: f.data["target"] for f in found if f.check == "broken-link"}
    text = links.rewrite(text, lambda link: links.retarget(link, targets[link.start], path) if link.start in targets else None)
    if any(f.check == "description" for f in found):
        note = notes.parse(text, path)
        describe.fill(note, path)
        text = notes.dumps(note)
    return text


def _restore_skill(memory: Memory, change, name: str) -> None:
    source = resources.path("skills") / name
    for file in sorted(source.rglob("*")):
        rel = f".skills/{name}/{file.relative_to(source).as_posix()}"
        if file.is_file() and "__pycache__" not in file.parts and not memory.exists(rel):
            change.write(rel, file.read_bytes())


def _index_people(memory: Memory, change, paths: list[str]) -> None:
    text = memory.read_text("people/_index.md")
    lines = []
    for path in paths:
        note = notes.parse(memory.read_text(path), path)
        title = str(note.get("name") or _title(note.body) or posixpath.basename(path)[:-3])
        lines.append(f"- {links.wikilink(path, alias=title)}")
    change.write("people/_index.md", text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")


def _title(body: str) -> str | None:
    marks = sections.headings(body)
    return marks[0][1] if marks and marks[0][0] == 1 else None


_VERBS = {"hooks": ("reinstalls", "the hooks", "the hooks"), "skill": ("restores", "skill", "skills"),
          "description": ("fills", "description", "descriptions"), "broken-link": ("mends", "link", "links"),
          "orphan": ("indexes", "person", "people")}


def _message(fixable: list[Finding]) -> str:
    counts: dict[str, int] = {}
    for f in fixable:
        counts[f.check] = counts.get(f.check, 0) + 1
    parts = []
    for check, n in sorted(counts.items(), key=lambda item: list(_VERBS).index(item[0])):
        verb, one, many = _VERBS[check]
        parts.append(f"{verb} {one}" if check == "hooks" else f"{verb} {n} {one if n == 1 else many}")
    return "fix(memory): doctor " + ", ".join(parts)
