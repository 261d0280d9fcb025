"""Links, resolved the way Obsidian resolves them — but never by guessing.

A link is a ``[[wikilink]]`` (with ``|alias``, ``#heading``, ``#^block``, ``![[embed]]``)
or a Markdown link ``[text](path.md)``. A wikilink resolves by its path from the vault's
root, then relative to the note, then by a unique path suffix or file name. Obsidian would
pick one of several files with the same name; we report the link as ambiguous instead.
Links inside code (fenced blocks, inline spans) are text, not links.
"""

import os
import posixpath
import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import quote, unquote

OK, MISSING, AMBIGUOUS, NO_ANCHOR = "ok", "missing", "ambiguous", "no_anchor"

_WIKI = re.compile(r"\[\[([^\[\]\n]+?)\]\]")   # `!` before it (an embed) is looked at by hand: a literal start is searched fast
_MARKDOWN = re.compile(r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\((<[^>\n]+>|[^)\s]+)(\s+\"[^\"\n]*\")?\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
# After a line's start, a space or a tab; opening with the literal `^`, so the search skips ahead to each one.
_BLOCK = re.compile(r"(?<![^ \t\n])\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Link:
    kind: str            # "wiki" or "markdown"
    embed: bool
    target: str          # the path part, decoded ("" for a link to a heading of the same note)
    anchor: str | None   # after '#': "Heading", "A#B" or "^blockid"
    alias: str | None    # a wikilink's alias or a Markdown link's text
    start: int
    end: int
    raw: str

    @property
    def block(self) -> str | None:
        return self.anchor[1:] if self.anchor and self.anchor.startswith("^") else None

    @property
    def heading(self) -> str | None:
        return self.anchor.split("#")[-1] if self.anchor and not self.anchor.startswith("^") else None


@dataclass(frozen=True)
class Resolution:
    status: str
    target: str | None = None
    candidates: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == OK


def find(text: str) -> list[Link]:
    """Every link in ``text``, in order, outside code."""
    visible = _mask_code(text)
    found = [_wiki(m, visible, text) for m in _WIKI.finditer(visible)] if "[[" in visible else []
    if "](" not in visible:   # most notes hold no Markdown link
        return found
    taken = [(link.start, link.end) for link in found]
    for match in _MARKDOWN.finditer(visible):
        if any(s <= match.start() < e for s, e in taken):
            continue
        link = _markdown(match, text)
        if link is not None:
            found.append(replace(link, raw=text[link.start:link.end]))
    return sorted(found, key=lambda l: l.start)


def _wiki(match: re.Match, visible: str, text: str) -> Link:
    inner = match[1]
    target, alias = inner, None
    if "|" in inner:
        split = re.search(r"\\?\|", inner)
        target, alias = inner[:split.start()], inner[split.end():]
    target, _, anchor = target.partition("#")
    embed = match.start() > 0 and visible[match.start() - 1] == "!"
    start = match.start() - embed
    return Link("wiki", embed, target.strip(), anchor.strip() or None, alias, start, match.end(), text[start:match.end()])


def _markdown(match: re.Match, text: str) -> Link | None:
    dest = match[3]
    if dest.startswith("<"):
        dest = dest[1:-1]
    if _SCHEME.match(dest) or dest.startswith("#") and len(dest) == 1:
        return None
    path, _, anchor = dest.partition("#")
    return Link("markdown", bool(match[1]), unquote(path), unquote(anchor) or None, match[2], match.start(), match.end(), "")


def _mask_code(text: str) -> str:
    """``text`` with code blanked out (same length), so offsets still point into the original."""
    if "`" not in text and "~~~" not in text:
        return text   # most notes: no code to blank
    if "```" not in text and "~~~" not in text:   # no fence: only inline spans
        return _CODE_SPAN.sub(lambda m: " " * len(m[0]), text)
    lines = text.split("\n")
    fence = None
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened[1][0] * len(opened[1])
            lines[i] = " " * len(line)
        elif fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            lines[i] = " " * len(line)
    masked = "\n".join(lines)
    return _CODE_SPAN.sub(lambda m: " " * len(m[0]), masked)


def normalise_heading(text: str) -> str:
    """Obsidian matches headings loosely: case, spacing and punctuation do not count."""
    text = re.sub(r"\[\[([^\]|]*\|)?([^\]]*)\]\]", r"\2", text)
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


class Vault:
    """Every file of a memory as Obsidian sees it (hidden folders excluded), for resolving links."""

    def __init__(self, files: Iterable[str], read: Callable[[str], str]):
        self.files = set(files)
        self._read = read
        self.outside: list[str] = []     # links that lead out of the memory, never read
        self._texts: dict[str, str] = {}
        self._links: dict[str, list[Link]] = {}
        self._anchors: dict[tuple[str, bool], set[str]] = {}

    @classmethod
    def of(cls, root: Path) -> "Vault":
        root = Path(root)
        outside: list[str] = []
        vault = cls(walk(root, outside), lambda rel: (root / rel).read_text(encoding="utf-8", errors="replace"))
        vault.outside = outside
        return vault

    @classmethod
    def from_texts(cls, texts: dict[str, str], others: Iterable[str] = ()) -> "Vault":
        """A vault held in memory: notes' texts by path, plus other (non-note) files."""
        return cls([*texts, *others], texts.__getitem__)

    @property
    def notes(self) -> list[str]:
        return sorted(p for p in self.files if p.endswith(".md"))

    def text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def links(self, path: str) -> list[Link]:
        if path not in self._links:
            self._links[path] = find(self.text(path))
        return self._links[path]

    @cached_property
    def _lower(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for path in self.files:
            index.setdefault(path.lower(), []).append(path)
        return index

    @cached_property
    def _names(self) -> dict[str, list[str]]:
        """Files by lower-case name; a note also by its name without '.md'."""
        index: dict[str, list[str]] = {}
        for path in self.files:
            name = posixpath.basename(path).lower()
            index.setdefault(name, []).append(path)
            if name.endswith(".md"):
                index.setdefault(name[:-3], []).append(path)
        return index

    def resolve(self, link: Link, source: str) -> Resolution:
        found = self._resolve_path(link, source)
        if not found.ok or not link.anchor or not found.target.endswith(".md"):
            return found
        return found if self.has_anchor(found.target, link.anchor) else Resolution(NO_ANCHOR, found.target)

    def _resolve_path(self, link: Link, source: str) -> Resolution:
        target = link.target.strip().lstrip("/") if link.kind == "wiki" else link.target.strip()
        if not target:
            return Resolution(OK, source)
        if link.kind == "markdown":
            relative = _join(posixpath.dirname(source), target)
            hit = relative and self._exact(relative, also_md=False)
            if hit:
                return Resolution(OK, hit)
            target = target.lstrip("/")
        hit = self._exact(target) or (target.startswith(".") and self._exact(_join(posixpath.dirname(source), target) or ""))
        if hit:
            return Resolution(OK, hit)
        return self._by_name(target)

    def _exact(self, path: str, also_md: bool = True) -> str | None:
        if not path:
            return None
        for candidate in (path, path + ".md") if also_md else (path,):
            if candidate in self.files:
                return candidate
            folded = self._lower.get(candidate.lower(), [])
            if len(folded) == 1:
                return folded[0]
        return None

    def _by_name(self, target: str) -> Resolution:
        key = target.lower()
        if "/" in key:
            name = posixpath.basename(key)
            pool = [p for p in self._names.get(name, []) if _suffix(p).endswith("/" + key)]
        else:
            pool = self._names.get(key, [])
        pool = sorted(set(pool))
        if len(pool) == 1:
            return Resolution(OK, pool[0])
        return Resolution(AMBIGUOUS if pool else MISSING, None, tuple(pool))

    def has_anchor(self, path: str, anchor: str) -> bool:
        if anchor.startswith("^"):
            return anchor[1:] in self.blocks(path)
        wanted = normalise_heading(anchor.split("#")[-1])
        return not wanted or wanted in self.headings(path)

    def headings(self, path: str) -> set[str]:
        key = (path, False)
        if key not in self._anchors:   # a journal day is linked to once per memory taken from it
            self._anchors[key] = {normalise_heading(m[1]) for m in _HEADING.finditer(_mask_code(self.text(path)))}
        return self._anchors[key]

    def blocks(self, path: str) -> set[str]:
        key = (path, True)
        if key not in self._anchors:
            self._anchors[key] = {m[1] for m in _BLOCK.finditer(self.text(path))}
        return self._anchors[key]

    def inbound(self) -> dict[str, set[str]]:
        """For each file, the notes that link to it (a note's links to itself excluded)."""
        found: dict[str, set[str]] = {}
        for source in self.notes:
            for link in self.links(source):
                hit = self._resolve_path(link, source)
                if hit.ok and hit.target != source:
                    found.setdefault(hit.target, set()).add(source)
        return found


def walk(root: Path, outside: list[str] | None = None) -> list[str]:
    """Every file under ``root`` that Obsidian indexes: hidden files and folders are not, nor
    links that lead out of the memory (added to ``outside``, when given)."""
    from souveraine.store import confine

    root = Path(root).resolve()
    found = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder).relative_to(root).as_posix()
        rel = (lambda name: name) if base == "." else (lambda name, base=base: f"{base}/{name}")
        kept = []
        for name in sorted(d for d in dirs if not d.startswith(".")):
            if confine.leads_out(root, Path(folder, name)):
                outside is not None and outside.append(rel(name))
            else:
                kept.append(name)
        dirs[:] = kept
        for name in files:
            if name.startswith("."):
                continue
            if confine.leads_out(root, Path(folder, name)):
                outside is not None and outside.append(rel(name))
            else:
                found.append(rel(name))
    if outside is not None:
        outside.sort()
    return sorted(found)


def _suffix(path: str) -> str:
    lower = "/" + path.lower()
    return lower[:-3] if lower.endswith(".md") else lower


def _join(folder: str, target: str) -> str | None:
    joined = posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)
    return None if joined.startswith("..") or joined == "." else joined


# -- writing links ------------------------------------------------------------------------


def wikilink(target: str, anchor: str | None = None, alias: str | None = None, embed: bool = False) -> str:
    """A link by the target's full path, which always resolves and never is ambiguous."""
    path = target[:-3] if target.endswith(".md") else target
    return f"{'!' if embed else ''}[[{path}{'#' + anchor if anchor else ''}{'|' + alias if alias else ''}]]"


def retarget(link: Link, target: str, source: str) -> str:
    """``link`` rewritten to point at ``target`` from the note at ``source``, keeping its form."""
    if link.kind == "wiki":
        separator = "\\|" if "\\|" in link.raw else "|"
        text = wikilink(target, link.anchor, None, link.embed)
        return text[:-2] + (separator + link.alias if link.alias is not None else "") + "]]"
    relative = posixpath.relpath(target, posixpath.dirname(source) or ".")
    dest = quote(relative) + ("#" + quote(link.anchor) if link.anchor else "")
    return f"{'!' if link.embed else ''}[{link.alias or ''}]({dest})"


def rewrite(text: str, new_text: Callable[[Link], str | None]) -> str:
    """``text`` with each link replaced by ``new_text(link)`` (None keeps it as it is)."""
    out, last = [], 0
    for link in find(text):
        replacement = new_text(link)
        if replacement is None or replacement == link.raw:
            continue
        out.append(text[last:link.start])
        out.append(replacement)
        last = link.end
    out.append(text[last:])
    return "".join(out)
