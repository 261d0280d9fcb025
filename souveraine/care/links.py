"""Links, resolved the way Obsidian resolves them — but never by guessing.

A link is a ``[[wikilink]]`` (with ``|alias``, ``#heading``, ``#^block``, ``![[embed]]``)
or a Markdown link ``[text](path.md)``. A wikilink resolves by its path from the vault's
root, then relative to the note, then by a unique path suffix or file name. Obsidian would
pick one of several files with the same name; we report the link as ambiguous instead.
Links are read by the Markdown parser (``language.markdown``): inside code (fenced or
indented blocks, inline spans), raw HTML or behind a backslash they are text, not links;
headings (setext too, never a ``#`` line in code) and block ids (never in code) likewise.
"""

import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from urllib.parse import quote

OK, MISSING, AMBIGUOUS, NO_ANCHOR = "ok", "missing", "ambiguous", "no_anchor"



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
    """Every link in ``text``, in order, outside code (read by ``language.markdown``)."""
    if "[[" not in text and "](" not in text:   # most journal days: nothing to parse
        return []
    from souveraine.language import markdown

    return [Link(l.kind, l.embed, l.target, l.anchor, l.alias, l.start, l.end, text[l.start:l.end])
            for l in markdown.links(text)]


def _find_in(path: str, text: str) -> list[Link]:
    """A journal day's links are read turn by turn, only in the turns that hold one: its
    format closes every block a turn's text opens, so a turn reads alone as it does in the day."""
    from souveraine.store import journal

    if not journal.is_day(path) or "[[" not in text and "](" not in text:
        return find(text)
    found = []
    for start, end in journal.regions(text):
        piece = text[start:end]
        if "[[" in piece or "](" in piece:
            found += [replace(l, start=l.start + start, end=l.end + start) for l in find(piece)]
    return found


def normalise_heading(text: str) -> str:
    """Obsidian matches headings loosely: case, spacing and punctuation do not count."""
    if "[[" in text:
        from souveraine.language import markdown

        text = markdown.shown(text)
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
    def near(cls, root: Path) -> "Vault":
        """The vault of ``root`` as ``of`` gives it, but listing only the folders a link's path
        names: the whole memory is walked only when a link is resolved by a file name alone."""
        return _Near(root)

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
            self._links[path] = _find_in(path, self.text(path))
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
            from souveraine.language import markdown

            self._anchors[key] = {normalise_heading(h.text) for h in markdown.headings(self.text(path))}
        return self._anchors[key]

    def blocks(self, path: str) -> set[str]:
        key = (path, True)
        if key not in self._anchors:
            self._anchors[key] = _block_ids(path, self.text(path))
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


class _Near(Vault):
    """``Vault.near``: a path is looked for where ``walk`` would list it — each of its folders
    by the same name in any case, neither hidden nor a link, nor leading out — so resolving a
    link by its path costs a listing of its folders, not of the memory (tens of thousands of
    files at ten years)."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        plain = Path(root)
        super().__init__((), lambda rel: (plain / rel).read_text(encoding="utf-8", errors="replace"))
        del self.files     # listed on first use, by the whole walk
        self._folders: dict[str, list[tuple[str, bool]]] = {}

    @cached_property
    def files(self) -> set[str]:
        return set(walk(self.root, self.outside))

    def _exact(self, path: str, also_md: bool = True) -> str | None:
        if not path:
            return None
        if "files" in self.__dict__:
            return super()._exact(path, also_md)
        for candidate in (path, path + ".md") if also_md else (path,):
            folded = self._folded(candidate)
            if candidate in folded:
                return candidate
            if len(folded) == 1:
                return folded[0]
        return None

    def _folded(self, path: str) -> list[str]:
        """Every file ``walk`` lists whose path is ``path`` in lower case."""
        *folders, name = path.lower().split("/")
        if not name or any(not part for part in folders):
            return []
        at = [""]
        for part in folders:
            at = [f"{base}{entry}/" for base in at for entry, folder in self._listing(base) if folder and entry.lower() == part]
        return [f"{base}{entry}" for base in at for entry, folder in self._listing(base)
                if not folder and entry.lower() == name]

    def _listing(self, base: str) -> list[tuple[str, bool]]:
        """A folder's visible entries as ``walk`` sees them: (name, whether it is walked into);
        a link to a folder is neither walked into nor a file, one leading out is neither."""
        from souveraine.store import confine

        if base not in self._folders:
            found = []
            folder = self.root / base
            try:
                entries = list(os.scandir(folder))
            except OSError:
                entries = []
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if entry.is_symlink() and confine.leads_out(self.root, Path(folder, entry.name)):
                    continue
                if not is_dir:
                    found.append((entry.name, False))
                elif not entry.is_symlink():
                    found.append((entry.name, True))
            self._folders[base] = found
        return self._folders[base]


def _block_ids(path: str, text: str) -> set[str]:
    """A journal day is read by its own strict reader (its grammar is checked against the
    Markdown parser's reading by the tests); any other note by the parser."""
    from souveraine.store import journal

    if journal.is_day(path):
        return journal.block_ids(text)
    from souveraine.language import markdown

    return {block for block, _ in markdown.block_ids(text)}


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
