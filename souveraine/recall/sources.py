"""What recall finds: each journal turn, and each note of memories/, people/, domains/,
reference/ and archive/, as one document with its tier, date and visibility.

A turn is its own document, with its block id, so a hit links to the very words said (the
index adds the turns around it as its context). Notes are read with python-frontmatter's
default handler (PyYAML's C loader: about 17 times faster than the round-trip reader
store.notes uses to write, and reading is all an index does). A note whose frontmatter does
not parse is still indexed, as text: the index never refuses a file.
"""

import re
import unicodedata
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from pathlib import Path, PurePosixPath

from souveraine.language import patterns
from souveraine.record import Record


KINDS = {
    "journal": "turn", "memories": "memory", "people": "person", "domains": "domain",
    "reference": "reference", "archive": "archive",
}
FOLDERS = tuple(KINDS)
TIERS = ("episodic", "foundational", "constitutive")

_ATTESTATIONS = patterns.compile(r"^## Attestations[ \t]*$", re.MULTILINE)
_DATED_NAME = patterns.compile(r"^(\d{4}-\d\d-\d\d)")
_DATE_KEYS = ("created", "date", "through", "updated")
_TURN_ID = patterns.compile(r"\^(t(\d\d)(\d\d)(\d\d)[A-Za-z0-9-]*)")
# Words without which a text names no date: most turns are passed over by one search, and
# only the few words around each such word are read as dates.
_DATEISH = (
    r"(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day|yesterday|tomorrow"
    r"|weekend|ago|(?:last|next|past|previous|this|coming) (?:week|month|year|night)|(?:end|start|beginning|middle) of"
    r"|\d{4}-\d\d|(?:19|20)\d\d|\d{1,2}(?:st|nd|rd|th)|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})\b")
_AROUND = 60
_CAPITALISED = patterns.compile(r"(?<![\w'’-])[^\W\d_a-z][^\W\d_]+")
_HEADING_LINE = patterns.compile(r"^\s*(#+ .*)?$")


class Document(Record):
    __slots__ = _fields = ("path", "kind", "body", "block", "tier", "at", "visibility", "role", "session", "line",
                           "title", "links", "source")

    def __init__(self, path: str, kind: str, body: str, block: str = "", tier: str = "", at: datetime | None = None,
                 visibility: str = "public", role: str = "", session: str = "", line: int = 0, title: str = "",
                 links: str = "", source: str = ""):
        self.path, self.kind, self.body, self.block = path, kind, body, block
        self.tier = tier                # episodic | foundational | constitutive | '' (a note with none)
        self.at = at                    # aware when the file says a zone, else local
        self.visibility, self.role, self.session, self.line = visibility, role, session, line
        self.title, self.links = title, links
        self.source = source            # a derived note's source turn: "journal/…/2026-03-14.md#t143205u4a1f"

    @property
    def day(self) -> str:
        return self.at.date().isoformat() if self.at else ""

    @property
    def decays(self) -> bool:
        """Only episodic items fade; foundational and constitutive ones and undated notes never."""
        return self.tier == "episodic" and self.at is not None

    @property
    def link(self) -> str:
        target = self.path[:-3] if self.path.endswith(".md") else self.path
        return f"[[{target}#^{self.block}]]" if self.block else f"[[{target}]]"


def mentions(doc: Document) -> list[tuple[str, str]]:
    """The days a turn's words name, as ISO (first, last), read at the turn's own time:
    "last week" said on Thursday 3 August 2023 is 24 July to 2 August (the calendar week
    before, and the seven days before). A phrase naming the day it was said adds nothing."""
    if doc.kind != "turn" or doc.at is None:
        return []
    windows = _windows(doc.body)
    if not windows:
        return []
    from souveraine.language import dates

    said = doc.at.date()
    out = []
    for mention in (m for start, end in windows for m in dates.find(doc.body[start:end], doc.at, prefer="past")):
        first, last = mention.begins.date(), (mention.ends - timedelta(microseconds=1)).date()
        if mention.grain == "week" and last < said:
            last = said - timedelta(days=1)
        if (first, last) != (said, said):
            out.append((first.isoformat(), last.isoformat()))
    return out


def names(doc: Document) -> set[str]:
    """The capitalised words of a document, folded ("Inês" → "ines"): Porter stems some names
    into everyday words ("Ines" into "in"), so they are also kept whole, to be looked up."""
    from souveraine.recall import query

    return {fold(word) for word in _CAPITALISED.findall(f"{doc.title} {doc.body}")
            if word.lower() not in query.STOPWORDS}


def fold(word: str) -> str:
    """A word without case or accents, as the index's tokenizer folds it."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def _windows(text: str) -> list[tuple[int, int]]:
    """The stretches of ``text`` around its date words, overlapping ones merged."""
    out: list[list[int]] = []
    for found in re.finditer(_DATEISH, text):
        start, end = max(0, found.start() - _AROUND), found.end() + _AROUND
        if out and start <= out[-1][1]:
            out[-1][1] = end
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


def indexed(relpath: str) -> bool:
    """Whether recall reads this path (a Markdown file under one of the folders above)."""
    parts = relpath.split("/")          # a scan asks for every file: a PurePosixPath each cost it 1.2 G instructions
    if "" in parts or "." in parts:
        parts = PurePosixPath(relpath).parts
    return (len(parts) > 1 and parts[0] in KINDS and relpath.endswith(".md")
            and not any(p.startswith(".") for p in parts))


def documents(relpath: str, text: str) -> list[Document]:
    """The documents one file holds: none for a template or index that holds nothing yet."""
    kind = KINDS[PurePosixPath(relpath).parts[0]]
    if kind == "turn":
        try:
            return _turns(relpath, text)
        except ValueError:          # a stray note in journal/ that is no day file
            pass
    note = _note(relpath, kind, text)
    return [note] if note else []


def _turns(relpath: str, text: str) -> list[Document]:
    return [Document(path=relpath, kind="turn", body=turn.text, block=turn.block_id, tier="episodic",
                     at=turn.at, role=turn.role, session=turn.session or "", line=turn.line,
                     links=" ".join(_links(turn.text)))
            for turn in _journal().parse(text, relpath)]


def _note(relpath: str, kind: str, text: str) -> Document | None:
    meta, body = _split(text)
    if kind == "memory":
        body = _ATTESTATIONS.split(body, 1)[0]
    body = _own_lines(relpath, meta, body)
    if body is None:
        return None
    tier = str(meta.get("tier") or ("episodic" if kind in ("memory", "archive") else ""))
    stem = PurePosixPath(relpath).stem
    source, said = _source(meta)
    return Document(
        path=relpath, kind=kind, body=body.strip(), tier=tier if tier in TIERS else "",
        at=said or _when(meta, stem),
        visibility="private" if str(meta.get("visibility", "")).lower() == "private" else "public",
        title=_title(meta, body, stem, kind), links=" ".join([*_links(text), *_names(meta, stem, kind)]),
        source=source,
    )


def _own_lines(relpath: str, meta: dict, body: str) -> str | None:
    """A note's body without the lines of the template init wrote it from; None when nothing
    but headings is left of an index or a template (init's people/_index.md is no result)."""
    template = _templates() / relpath
    stem = PurePosixPath(relpath).stem
    if not template.is_file() and meta.get("type") != "index" and not stem.startswith("_"):
        return body
    given = set(_split(template.read_text(encoding="utf-8"))[1].splitlines()) if template.is_file() else set()
    own = [line for line in body.splitlines() if line not in given]
    said = [line for line in own if line.strip()]
    if not said or all(_HEADING_LINE.match(line) for line in said) and _only_headings("\n".join(said)):
        return None
    return "\n".join(own)


def _only_headings(text: str) -> bool:
    """Whether CommonMark reads nothing but headings in ``text`` ("    # x" is code, "####### x"
    a paragraph); asked only of lines the pattern above took for headings, so recall parses
    no Markdown for the notes that hold more."""
    from souveraine.language import markdown

    return len(markdown.headings(text)) == len(text.splitlines())


@lru_cache(maxsize=1)
def _templates() -> Path:
    from souveraine.resources import path as resource

    return resource("memory")


def _journal():
    from souveraine.store import journal     # only to read files: a recall on a fresh index needs none

    return journal


def _source(meta: dict) -> tuple[str, datetime | None]:
    """The journal turn a derived note was written from, and when that turn was said: the note
    is about that moment, not about the day its file was made."""
    value = str(meta.get("source") or "")
    link = next((l for l in _wikilinks(value) if l.target.startswith("journal/")), None)
    found = _TURN_ID.fullmatch(link.anchor or "") if link else None
    if not found:
        return "", None
    path = link.target if link.target.endswith(".md") else link.target + ".md"
    try:
        day = _journal().day_of(path)
        return f"{path}#{found[1]}", datetime(day.year, day.month, day.day, int(found[2]), int(found[3]), int(found[4]))
    except ValueError:
        return f"{path}#{found[1]}", None


def _split(text: str) -> tuple[dict, str]:
    import frontmatter

    try:
        post = frontmatter.loads(text)
    except Exception:  # any YAML error: the file is still words worth finding
        return {}, text
    return (post.metadata if isinstance(post.metadata, dict) else {}), post.content


def _when(meta: dict, stem: str) -> datetime | None:
    for key in _DATE_KEYS:
        moment = _moment(meta.get(key))
        if moment:
            return moment
    dated = _DATED_NAME.match(stem)
    return _moment(dated[1]) if dated else None


def _moment(value) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime.combine(value, time())
    if isinstance(value, str) and value.strip():
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _title(meta: dict, body: str, stem: str, kind: str) -> str:
    if kind == "memory":
        return ""       # its description is its first sentence: counting it twice skews BM25
    title = meta.get("title") or _heading(body) or stem
    return str(title).strip()


def _names(meta: dict, stem: str, kind: str) -> list[str]:
    """What a person's own note answers to: its name and aliases."""
    if kind != "person":
        return []
    aliases = meta.get("aliases") or []
    return [stem, *(str(a) for a in (aliases if isinstance(aliases, list) else [aliases]))]


def _heading(body: str) -> str | None:
    """The note's first level-1 heading (setext too; never a ``# comment`` in code)."""
    if "#" not in body and "=" not in body:
        return None
    from souveraine.language import markdown

    return markdown.title(body)


def _wikilinks(text: str) -> list:
    if "[[" not in text:        # most turns: no parse
        return []
    from souveraine.language import markdown

    return markdown.wikilinks(text)


def _links(text: str) -> list[str]:
    return [l.target for l in _wikilinks(text) if l.target]
