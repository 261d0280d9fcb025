"""`defrag`: reshape the memory's knowledge notes without losing a word or breaking a link.

The plan is computed from the memory as it is: split overgrown notes along their headings,
merge near-duplicates, fill missing descriptions, then rewrite every link that pointed at
moved text. It is applied in a git worktree on its own branch (under .souveraine/, which
git ignores), committed there through the hooks, and merged back fast-forward while the
memory's lock is held. Any failure leaves main as it was. Append-only files, system/,
memories and the witness are never reshaped; a note that an append-only file links to is
never moved, since that link could not be mended.
"""

import json
import math
import posixpath
import re
from collections import Counter
import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Callable

from souveraine.care import describe, links, sections
from souveraine.care.survey import Survey, survey
from souveraine.errors import Refused
from souveraine.store import layout, notes, repair
from souveraine.store.atomic import atomic_write
from souveraine.store.memory import Memory

RESHAPABLE = ("people/", "domains/", "reference/")
NEAR_DUPLICATE = 0.8     # word-trigram overlap above which two notes say the same thing
MIN_SHINGLES = 12        # notes shorter than this are stubs, not duplicates
WORKTREES = "defrag"     # under .souveraine/


@dataclass
class Step:
    action: str          # split | merge | describe | relink
    path: str
    detail: str
    into: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"action": self.action, "path": self.path, "detail": self.detail, "into": self.into}


@dataclass
class Reshape:
    """The memory after defrag, as a difference: files written, files deleted, text moved."""

    seen: Survey
    steps: list[Step] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)       # new or changed file -> its text
    deleted: set[str] = field(default_factory=set)
    whole: dict[str, str] = field(default_factory=dict)       # old note -> the note its text went into
    anchored: dict[str, dict[str, str]] = field(default_factory=dict)   # old note -> {anchor key -> new note}
    origin: dict[str, str] = field(default_factory=dict)      # new note -> the note its text came from

    def text(self, path: str) -> str:
        return self.texts[path] if path in self.texts else self.seen.vault.text(path)

    @property
    def files(self) -> set[str]:
        return (self.seen.vault.files | set(self.texts)) - self.deleted

    def moved(self, target: str, anchor: str | None) -> str:
        """Where text once at ``target`` (and ``anchor``) lives now."""
        key = _anchor_key(anchor)
        if key and key in self.anchored.get(target, {}):
            return self.anchored[target][key]
        return self.whole.get(target, target)


def plan(memory: Memory, progress: Callable[[int, int], None] | None = None) -> Reshape:
    seen = survey(memory, progress)
    shape = Reshape(seen)
    receipts = _receipts(seen)
    taken = {posixpath.splitext(posixpath.basename(p))[0].lower() for p in seen.vault.files}
    split = set()
    for path in _reshapable(seen):
        if _split(shape, path, receipts, taken):
            split.add(path)
    _merge_duplicates(shape, [p for p in _reshapable(seen) if p not in split and p not in shape.texts], receipts)
    _describe(shape)
    _relink(shape, progress)
    _check(shape)
    return shape


def defrag(memory: Memory, *, dry_run: bool = False, progress: Callable[[int, int], None] | None = None) -> dict:
    """Plan, and unless ``dry_run`` apply the plan as one ``chore(defrag): …`` commit."""
    with memory.lock():
        if not dry_run:
            _require_clean(memory)
        shape = plan(memory, progress)
        steps = [s.to_dict() for s in shape.steps]
        if dry_run or not shape.steps:
            return {"plan": steps, "commit": None}
        return {"plan": steps, "commit": _apply_in_worktree(memory, shape)}


# -- planning -----------------------------------------------------------------------------


def reshapes(seen: Survey, path: str) -> bool:
    """Whether defrag may split, merge or move this note."""
    if seen.append_only(path) or seen.generated(path) or seen.index(path):
        return False
    return path.startswith(RESHAPABLE) or layout.region(path) is None


def _reshapable(seen: Survey) -> list[str]:
    return [p for p in sorted(seen.notes) if reshapes(seen, p)]


def _receipts(seen: Survey) -> set[str]:
    """Notes that an append-only file links to: moving their text would break a link no one may mend."""
    return {target for target, sources in seen.inbound.items() if any(map(seen.append_only, sources))}


def _split(shape: Reshape, path: str, receipts: set[str], taken: set[str]) -> bool:
    seen = shape.seen
    body = seen.body(path)
    people_file = posixpath.basename(path).lower() == "people.md"
    overgrown = len(seen.vault.text(path).encode("utf-8")) > seen.memory.config["doctor"]["max_note_bytes"]
    if not (people_file or overgrown or sections.unrelated(body)) or path in receipts or path in shape.texts:
        return False
    cut = sections.cut(body)
    if len(cut.sections) < 2:
        return False
    folder = "people" if people_file else posixpath.splitext(path)[0]
    parent = _fresh(seen, path)
    made = []
    for section in cut.sections:
        known = f"people/{_slug(section.title)}.md" if people_file else None
        if known in seen.notes and not seen.append_only(known) and known not in shape.deleted:
            child = known
            shape.texts[child] = shape.text(child).rstrip("\n") + "\n\n" + section.text
        else:
            child = _free_name(folder, section.title, posixpath.basename(folder), taken)
            shape.texts[child] = notes.dumps(_child_note(parent, section, child, people_file))
            shape.origin[child] = path
        for key in _anchor_keys(section.text):
            shape.anchored.setdefault(path, {})[key] = child
        made.append((child, section.title))
    index_lines = "\n".join(f"- {links.wikilink(child, alias=title)}" for child, title in made) + "\n"
    if people_file:
        _fold_into_people_index(shape, path, cut.preamble, index_lines)
    else:
        head = cut.preamble.rstrip("\n")
        parent.body = (head + "\n\n" if head.strip() else "") + index_lines
        describe.fill(parent, path)
        shape.texts[path] = notes.dumps(parent)
    why = "everyone in one file" if people_file else "overgrown" if overgrown else "unrelated sections"
    shape.steps.append(Step("split", path, f"{why}: {len(made)} notes along its headings", [c for c, _ in made]))
    return True


def _child_note(parent, section: sections.Section, child: str, person: bool):
    meta = {"description": describe.describe(section.text, child)}
    if person:
        meta = {"type": "person", "name": section.title, **meta, "tags": ["people"]}
    elif isinstance(parent.get("tags"), list) and parent.get("tags"):
        meta["tags"] = [str(t) for t in parent.get("tags")]
    return notes.new(meta, section.text)


def _fold_into_people_index(shape: Reshape, path: str, preamble: str, index_lines: str) -> None:
    index = "people/_index.md"
    text = shape.text(index) if index in shape.files else "---\ntype: index\ndescription: Everyone this memory knows, one note per person in people/.\n---\n"
    have = set(sections.paragraphs(notes.parse(text, index).body))
    keep = [p for p in sections.paragraphs(preamble) if p not in have]
    shape.texts[index] = text.rstrip("\n") + "\n\n" + "".join(p + "\n\n" for p in keep) + index_lines
    shape.deleted.add(path)
    shape.whole[path] = index
    shape.origin[index] = index


def _free_name(folder: str, title: str, parent_stem: str, taken: set[str]) -> str:
    """A path whose file name no other file has, so no link by name becomes ambiguous."""
    base = _slug(title) or "section"
    for n in range(1, 1000):
        stem = base if n == 1 else f"{_slug(parent_stem)}-{base}" if n == 2 else f"{_slug(parent_stem)}-{base}-{n - 1}"
        if stem not in taken:
            taken.add(stem)
            return f"{folder}/{stem}.md"
    raise Refused(f"no free name for '{title}' in {folder}")


def _merge_duplicates(shape: Reshape, paths: list[str], receipts: set[str]) -> None:
    seen = shape.seen
    folders: dict[str, dict[str, set]] = {}
    for path in paths:
        grams = _shingles(seen.body(path))
        if len(grams) >= MIN_SHINGLES:
            folders.setdefault(posixpath.dirname(path), {})[path] = grams
    pairs = [pair for grams in folders.values() for pair in _near_duplicates(grams)]
    keepers, gone = set(), set()
    for score, a, b in sorted(pairs, key=lambda pair: (-pair[0], pair[1], pair[2])):
        if {a, b} & gone:
            continue
        keeper, other = _keeper(seen, a, b)
        if other in receipts:
            keeper, other = other, keeper
        if other in receipts or other in keepers:
            continue
        _merge(shape, keeper, other, score)
        keepers.add(keeper)
        gone.add(other)


def _near_duplicates(grams: dict[str, set]) -> list[tuple[float, str, str]]:
    """Pairs at least NEAR_DUPLICATE alike, by prefix filtering: exact, without comparing every pair.

    Two sets that alike must share one of the rarest len - ceil(t·len) + 1 shingles of each.
    """
    frequency = Counter(g for bag in grams.values() for g in bag)
    index: dict[tuple, list[str]] = {}
    pairs = []
    for path in sorted(grams, key=lambda p: (len(grams[p]), p)):
        bag = grams[path]
        ordered = sorted(bag, key=lambda g: (frequency[g], g))
        prefix = ordered[:len(ordered) - math.ceil(NEAR_DUPLICATE * len(ordered)) + 1]
        for other in sorted({o for g in prefix for o in index.get(g, ())}):
            smaller = grams[other]
            if len(smaller) < NEAR_DUPLICATE * len(bag):
                continue
            score = len(bag & smaller) / len(bag | smaller)
            if score >= NEAR_DUPLICATE:
                pairs.append((score, *sorted((path, other))))
        for g in prefix:
            index.setdefault(g, []).append(path)
    return pairs


def _keeper(seen: Survey, a: str, b: str) -> tuple[str, str]:
    def weight(p):
        return (-len(seen.inbound.get(p, ())), -len(seen.body(p)), len(p), p)
    first, second = sorted((a, b), key=weight)
    return first, second


def _merge(shape: Reshape, keeper: str, other: str, score: float) -> None:
    seen = shape.seen
    note = _fresh(seen, keeper)
    extra = _new_paragraphs(sections.paragraphs(note.body), sections.paragraphs(seen.body(other)))
    if extra:
        note.body = note.body.rstrip("\n") + "\n\n" + "\n\n".join(extra) + "\n"
    if not note.get("description") and seen.notes[other].get("description"):
        note["description"] = seen.notes[other].get("description")
    shape.texts[keeper] = notes.dumps(note)
    shape.deleted.add(other)
    shape.whole[other] = keeper
    shape.origin[keeper] = keeper
    shape.steps.append(Step("merge", other, f"{score:.0%} the same as {keeper}: merged into it, {len(extra)} paragraph(s) added", [keeper]))


def _new_paragraphs(had: list[str], offered: list[str]) -> list[str]:
    """The offered paragraphs that say something the kept ones do not. One whose words the
    keeper already holds in that order — alone, or inside a longer paragraph — is not added
    again, however its case, spacing, punctuation or line breaks differ; nor is one offered
    twice. A paragraph with other words is kept: a merge loses nothing."""
    kept = [f" {_words(p)} " for p in had]
    extra = []
    for paragraph in offered:
        words = f" {_words(paragraph)} "
        if words.strip() and any(words in old for old in kept):
            continue
        extra.append(paragraph)
        kept.append(words)
    return extra


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def _fresh(seen: Survey, path: str) -> notes.Note:
    """A note of its own to change, leaving the survey's as it was read."""
    return notes.parse(seen.vault.text(path), path)


def _describe(shape: Reshape) -> None:
    seen = shape.seen
    for path, note in sorted(seen.notes.items()):
        if path in shape.deleted or seen.append_only(path) or seen.generated(path):
            continue
        if path in shape.texts:
            current = notes.parse(shape.texts[path], path)
            if not current.get("description"):
                describe.fill(current, path)
                shape.texts[path] = notes.dumps(current)
            continue
        if not (isinstance(note.get("description"), str) and note.get("description").strip()):
            note = _fresh(seen, path)
            described = describe.fill(note, path)
            shape.texts[path] = notes.dumps(note)
            shape.steps.append(Step("describe", path, f"description: {described}"))


def _relink(shape: Reshape, progress) -> None:
    """Point every link whose text moved at where it went, from wherever the linking note now is."""
    seen = shape.seen
    after = links.Vault(shape.files, shape.text)   # rewriting links moves no heading, so one index serves
    candidates = [p for p in sorted(_touched(shape)) if p.endswith(".md") and not seen.append_only(p)]
    for n, path in enumerate(candidates, 1):
        source = shape.origin.get(path, path)
        text = shape.text(path)
        new = links.rewrite(text, lambda link: _relinked(shape, after, link, source, path))
        if new != text:
            shape.steps.append(Step("relink", path, "links to moved text rewritten"))
            shape.texts[path] = new
        if progress:
            progress(n, len(candidates))


def _relinked(shape: Reshape, after: links.Vault, link: links.Link, source: str, path: str) -> str | None:
    before = shape.seen.vault.resolve(link, source) if source in shape.seen.vault.files else None
    if before is None or not before.ok:
        return None
    target = shape.moved(before.target, link.anchor)
    now = after.resolve(link, path)
    if now.ok and now.target == target:
        return None
    return links.retarget(link, target, path)


def _check(shape: Reshape) -> None:
    """Refuse a plan that touches an append-only file or leaves a link broken that was not (a bug)."""
    seen = shape.seen
    for path in set(shape.texts) | shape.deleted:
        if seen.append_only(path):
            raise Refused(f"defrag planned to change {path}, which is append-only; nothing was changed")
    after = links.Vault(shape.files, shape.text)
    for path in sorted(p for p in _touched(shape) if p.endswith(".md")):
        source = shape.origin.get(path, path)
        was = _broken(seen.vault, source) if source in seen.vault.files else set()
        now = _broken(after, path)
        if now - was:
            raise Refused(f"defrag would break {sorted(now - was)[0]} in {path}; nothing was changed")


def _touched(shape: Reshape) -> set[str]:
    """The notes whose links the plan may change: those it writes, and those linking to a note
    it writes or deletes. Any other note's links resolve as before."""
    moved = set(shape.texts) | shape.deleted
    inbound = shape.seen.inbound
    linking = {source for target in moved for source in inbound.get(target, ())}
    return (set(shape.texts) | linking) & shape.files


def _broken(vault: links.Vault, path: str) -> set[str]:
    return {link.raw for link in vault.links(path) if not vault.resolve(link, path).ok}


def _anchor_keys(text: str) -> set[str]:
    from souveraine.language import markdown

    keys = {_anchor_key(title) for _, title, _ in sections.headings(text)}
    keys |= {"^" + block for block, _ in markdown.block_ids(text)}
    return keys


def _anchor_key(anchor: str | None) -> str | None:
    if not anchor:
        return None
    if anchor.startswith("^"):
        return anchor
    return links.normalise_heading(anchor.split("#")[-1]) or None


def _shingles(body: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", body.lower())
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}


def _slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "-".join(re.findall(r"[a-z0-9]+", plain)[:8])


# -- applying -----------------------------------------------------------------------------


def _require_clean(memory: Memory) -> None:
    memory.refuse_mid_operation()
    dirty = memory.git("status", "--porcelain").stdout.splitlines()
    if dirty:
        raise Refused(f"the memory has {len(dirty)} uncommitted change(s); commit or discard them, then run defrag",
                      code="dirty")


def _apply_in_worktree(memory: Memory, shape: Reshape) -> str:
    """A run killed at any point leaves what store.repair mends at the next lock: the
    worktree and branch (removed), a fast-forward half-done (put back at its base)."""
    base = memory.git("rev-parse", "HEAD").stdout.strip()
    name = uuid.uuid4().hex[:8]
    branch = f"defrag/{name}"
    where = memory.cache / WORKTREES / name
    marker = memory.cache / repair.DEFRAG_MERGE
    memory.git("worktree", "add", "-q", "-b", branch, str(where), base)
    try:
        _commit(Memory(where), shape)
        tip = memory.git("rev-parse", branch).stdout.strip()
        atomic_write(marker, json.dumps({"base": base, "tip": tip, "branch": branch}) + "\n")
        _merge_back(memory, branch, base)
    except BaseException:
        if memory.git("rev-parse", "HEAD").stdout.strip() != base:
            memory.git("reset", "-q", "--hard", base)
        raise
    finally:
        marker.unlink(missing_ok=True)
        memory.git("worktree", "remove", "--force", "--force", str(where), check=False)
        memory.git("branch", "-D", branch, check=False)
    return memory.git("rev-parse", "HEAD").stdout.strip()


def _commit(worktree: Memory, shape: Reshape) -> None:
    with worktree.change(_message(shape.steps)) as change:
        for path in sorted(shape.texts):
            change.write(path, shape.texts[path])
        for path in sorted(shape.deleted):
            change.delete(path)


def _merge_back(memory: Memory, branch: str, base: str) -> None:
    if memory.git("rev-parse", "HEAD").stdout.strip() != base:
        raise Refused("the memory changed while defrag worked; nothing was merged, run defrag again")
    memory.git("merge", "--ff-only", "-q", branch)


def _message(steps: list[Step]) -> str:
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.action] = counts.get(step.action, 0) + 1
    words = {"split": ("split", "note", "notes"), "merge": ("merge", "duplicate", "duplicates"),
             "describe": ("describe", "note", "notes"), "relink": ("relink", "note", "notes")}
    parts = [f"{words[a][0]} {n} {words[a][1] if n == 1 else words[a][2]}" for a, n in counts.items()]
    return "chore(defrag): " + ", ".join(parts)
