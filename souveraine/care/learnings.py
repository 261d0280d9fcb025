"""`learnings`: what the unit reports keep saying, consolidated into system/project/learnings.md.

Reports are append-only and never pinned (constitution §IX.4 point 3); a point that comes
back in two reports or more is a lesson, and lessons belong where every wake reads them.
Each sentence of a report's prose (its summary, what blocked it, each phase's output; not
the list of files touched) is a point; points are grouped when their words mostly agree
(stemmed, common words left out; Jaccard ≥ ``SIMILAR``), and a group that spans
``min_reports`` reports or more becomes one line: its most representative sentence, then
a link to every report that said it. A lesson already in learnings.md (the same words, or
the same reports) is not written twice, so a monthly run adds only what is new.
"""

import posixpath
import re
from dataclasses import dataclass, field

from souveraine.errors import NoteError
from souveraine.store import clock, layout, notes
from souveraine.store.memory import Memory

SIMILAR = 0.5          # Jaccard of two points' content words for them to be one point
MIN_WORDS = 3          # a point needs this many content words ("Tests pass." is no lesson)
MIN_REPORTS = 2
MAX_POINT = 240
SECTION = "## From the reports"
_SKIP = re.compile(r"^(?:Files: |- `[^`]+`$)")


@dataclass
class Point:
    text: str
    report: str
    words: frozenset


@dataclass
class Group:
    points: list[Point] = field(default_factory=list)
    words: set = field(default_factory=set)

    @property
    def reports(self) -> list[str]:
        return sorted({p.report for p in self.points})

    def representative(self) -> Point:
        """The point closest to all the others (ties: the shortest, then the earliest report)."""
        def closeness(p: Point) -> float:
            return sum(_jaccard(p.words, q.words) for q in self.points if q is not p)
        return max(self.points, key=lambda p: (closeness(p), -len(p.text), [-ord(c) for c in p.report[:1]]))


def consolidate(memory: Memory, min_reports: int = MIN_REPORTS) -> dict:
    """Append the recurring points of reference/reports/ to learnings.md, one commit; nothing when none are new."""
    reports = _reports(memory)
    groups = [g for g in _group(p for path in reports for p in _points(memory, path)) if len(g.reports) >= min_reports]
    known = _known(memory)
    new = [g for g in groups if not _already(g, known)]
    lines = [_line(g) for g in sorted(new, key=lambda g: (-len(g.reports), g.reports))]
    result = {"reports": len(reports), "recurring": len(groups), "added": lines, "commit": None}
    if not lines:
        return result
    path = layout.PROJECT_LEARNINGS
    with memory.change(f"feat(memory): {len(lines)} learning{'s' if len(lines) > 1 else ''} from the unit reports") as change:
        text = memory.read_text(path) if memory.exists(path) else _new_file()
        change.write(path, _with_lines(text, lines))
    result["commit"] = change.sha
    return result


def _reports(memory: Memory) -> list[str]:
    folder = memory.root / layout.REPORTS
    return sorted(memory.rel(p) for p in folder.rglob("*.md")) if folder.is_dir() else []


def _points(memory: Memory, path: str) -> list[Point]:
    from souveraine.language import markdown, sentences

    try:
        body = notes.read(memory.path(path)).body
    except (OSError, NoteError):
        return []
    out, files = [], False
    code = markdown.code_lines(body)
    headings = {h.line: h for h in markdown.headings(body)}
    underlines = {h.line + 1 for h in headings.values() if h.underlined}
    for n, line in enumerate(body.split("\n")):
        if n in headings:
            files = headings[n].text.lower().startswith("files touched")
            continue
        if files or n in code or n in underlines or _SKIP.match(line.strip()) or not line.strip():
            continue
        for said in sentences.texts(_unlinked(line)):
            words = _stems(said)
            if len(words) >= MIN_WORDS and len(said) <= MAX_POINT:
                out.append(Point(said.strip(), path, frozenset(words)))
    return out


def _group(points) -> list[Group]:
    groups: list[Group] = []
    for point in points:
        best = max(groups, key=lambda g: _jaccard(point.words, g.words), default=None)
        if best is not None and _jaccard(point.words, best.words) >= SIMILAR:
            best.points.append(point)
        else:
            groups.append(Group([point], set(point.words)))
    return groups


def _known(memory: Memory) -> list[tuple[frozenset, frozenset]]:
    """Each line of learnings.md: its words, and the reports it cites."""
    path = layout.PROJECT_LEARNINGS
    if not memory.exists(path):
        return []
    out = []
    for line in memory.read_text(path).split("\n"):
        if line.startswith("- "):
            said = line[2:].split(" — [[", 1)[0]
            out.append((frozenset(_stems(_unlinked(said))), frozenset(_reports_cited(line))))
    return out


def _already(group: Group, known: list[tuple[frozenset, frozenset]]) -> bool:
    cited = frozenset(r[:-3] for r in group.reports)
    return any(_jaccard(group.words, words) >= SIMILAR or (reports and cited <= reports) for words, reports in known)


def _line(group: Group) -> str:
    point = group.representative()
    cites = ", ".join(f"[[{r[:-3]}|{posixpath.basename(r)[:-3]}]]" for r in group.reports)
    return f"- {point.text} — {cites} ({clock.now().date().isoformat()})"


def _with_lines(text: str, lines: list[str]) -> str:
    text = text.rstrip("\n") + "\n"
    if SECTION not in text:
        text += f"\n{SECTION}\n\n"
    return text + "\n".join(lines) + "\n"


def _new_file() -> str:
    return notes.dumps(notes.new({"type": "project", "description": "What the agent learned working on the project, "
                                  "as durable rules.", "tags": ["system", "project"]}, "# Learnings\n"))


def _unlinked(text: str) -> str:
    if "[[" not in text:
        return text
    from souveraine.language import markdown

    return markdown.shown(text, lambda l: l.alias or posixpath.basename(l.target) if l.kind == "wiki" else None)


def _reports_cited(line: str) -> list[str]:
    from souveraine.language import markdown

    return [l.target for l in markdown.wikilinks(line) if l.target.startswith(layout.REPORTS)]


def _stems(text: str) -> set[str]:
    from souveraine.language.words import content_stems

    return content_stems(text)


def _jaccard(a, b) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
