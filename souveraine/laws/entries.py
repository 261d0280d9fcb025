"""An append-only file read as what it is made of: a header, then entries, each with its time.

An entry begins at a line of the file's own kind — a journal turn's `## HH:MM:SS · role`,
a chronicle or report's `## <date and time> · …`, an inner-voice or delivery line's
`[YYYY-MM-DD HH:MM]` — together with the blank lines just before it; whatever follows up
to the next one belongs to it. The kind is the first of those found in any version read
together, so one rule splits them all; a file holding none is read line by line.

Text appended without a line of its own (a hand-written note after the last turn)
extends the entry before it. Versions are therefore split together: where one version's
entry is another's followed by more text, it is read as that entry plus the addition, so
an entry is a unit all versions agree on (`split`).

The merge driver orders two sides' new entries by their time, and the law on merges
checks that each side's entries are all kept, whole and in order (`missing`).
"""

import os
import re
from datetime import datetime, timezone

from souveraine.language import patterns

# Kinds of entry line, most specific first. Group 1 is the time.
_JOURNAL = patterns.compile(rb"## (\d\d:\d\d:\d\d) \xc2\xb7 [a-z]+")
_STAMPED = patterns.compile(rb"#{1,6} (\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?)(?=[\s\xc2]|$)")
_LINE = patterns.compile(rb"(?:[-*] )?\[(\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d)?)\]")
_HEADING = patterns.compile(rb"#{2,6} \S")
KINDS = ((_JOURNAL, True), (_STAMPED, True), (_LINE, False), (_HEADING, True))
_ID = patterns.compile(rb"\^([A-Za-z0-9-]+)[ \t]*\r?$", re.MULTILINE)
_TITLE = patterns.compile(rb"# \S")
_DAY = patterns.compile(r"(\d{4})-(\d\d)-(\d\d)\.md$")


class Entry:
    """One entry's bytes; its time (as sortable text, '' when it has none) and block id are read
    when asked, an entry without a time of its own taking those of the entry before it.
    ``follows``: text added after another entry without a line of its own, which goes with it."""

    __slots__ = ("text", "follows", "prev", "reading", "_stamp")

    def __init__(self, text: bytes, follows: bool = False, prev: "Entry | None" = None, reading=None):
        self.text, self.follows, self.prev, self.reading, self._stamp = text, follows, prev, reading, None

    @property
    def time(self) -> str:
        return self._stamped()[0]

    @property
    def id(self) -> str:
        return self._stamped()[1]

    def key(self) -> tuple:
        return (self.time, self.id, self.text)

    def _stamped(self) -> tuple[str, str]:
        chain, entry = [], self
        while entry is not None and entry._stamp is None:
            own = None if entry.follows else _time(entry.text, entry.reading)
            if own:
                found = _ID.search(entry.text)
                entry._stamp = (own, found[1].decode() if found else "")
                break
            chain.append(entry)
            entry = entry.prev
        stamp = entry._stamp if entry is not None else ("", "")
        for waiting in chain:
            waiting._stamp = stamp
        return self._stamp

    def __repr__(self) -> str:
        return f"Entry({self.time!r}, {self.id!r}, {len(self.text)} bytes)"


def lines(data: bytes) -> list[bytes]:
    """The lines of ``data``, each with its newline (the last may have none)."""
    return re.findall(rb"[^\n]*\n|[^\n]+$", data)


def split(versions: list[bytes | None], path: str = "") -> list[tuple[bytes, list[Entry]] | None]:
    """Each version as (header, entries), split alike (see the module's docstring); None stays None."""
    present = [v for v in versions if v is not None]
    kind = _kind([v for v in present if v], path)
    shared = _shared(present, kind)
    parsed = [None if v is None else _parse(v, kind, path, shared) for v in versions]
    _refine(parsed)
    return parsed


def missing(old: list[Entry], new: list[Entry]) -> Entry | None:
    """The first entry of ``old`` that ``new`` does not keep, whole and in order; None when all are kept."""
    at = 0
    for entry in old:
        if entry.follows and not entry.text.strip():
            continue  # blank lines at an end, which the next heading takes as its own
        while at < len(new) and new[at].text != entry.text:
            at += 1
        if at == len(new):
            return entry
        at += 1
    return None


def line_of(data: bytes, entry: Entry) -> int:
    """The 1-based line where ``entry`` begins in ``data`` (its first non-blank line)."""
    at = data.find(entry.text)
    if at < 0:
        return 1
    at += len(entry.text) - len(entry.text.lstrip(b"\r\n"))
    return data.count(b"\n", 0, at) + 1


def ids(entry: Entry) -> list[str]:
    return [m[1].decode() for m in _ID.finditer(entry.text)] if b"^" in entry.text else []


# -- reading -----------------------------------------------------------------------------


def _kind(versions: list[bytes], path: str):
    bodies = [_body(v) for v in versions]
    for pattern, heading in KINDS:
        anywhere = _anchored(pattern)
        if any(anywhere.search(body) for body in bodies):
            return pattern, heading
    return None, False


_ANCHORED: dict = {}


def _anchored(pattern: re.Pattern) -> re.Pattern:
    """``pattern`` at the start of any line."""
    if pattern not in _ANCHORED:
        _ANCHORED[pattern] = re.compile(rb"(?m)^" + pattern.pattern)
    return _ANCHORED[pattern]


def _body(data: bytes) -> bytes:
    return data[_frontmatter_end(data):]


def _frontmatter_end(data: bytes) -> int:
    if not data.startswith(b"---"):
        return 0
    match = re.search(rb"\n-{3,}[ \t]*(?:\r?\n|$)", data[3:])
    return 3 + match.end() if match else 0


def _parse(data: bytes, kind, path: str, shared: int = 0) -> tuple[bytes, list[Entry]]:
    """(header, entries); the first ``shared`` bytes, the same in every version read, are taken
    as header: their entries are alike everywhere, so reading them tells nothing."""
    pattern, heading = kind
    start = max(_frontmatter_end(data), shared)
    body = data[start:]
    cuts = _cuts(body, pattern, heading)
    header = data[:start] + body[:cuts[0] if cuts else len(body)]
    reading = (pattern, _day(path))
    entries: list[Entry] = []
    for n, cut in enumerate(cuts):
        text = body[cut:cuts[n + 1] if n + 1 < len(cuts) else len(body)]
        entries.append(Entry(text, prev=entries[-1] if entries else None, reading=reading))
    return header, entries


def _shared(versions: list[bytes], kind) -> int:
    """Where the versions' common beginning last starts an entry (0 when it is short or none does).
    A day of turns merged from two devices differs only in its last hours."""
    pattern, heading = kind
    if len(versions) < 2 or pattern is None:
        return 0
    same = len(os.path.commonprefix(versions))
    if same < 4096:
        return 0
    data = versions[0]
    end = data.rfind(b"\n", 0, same) + 1   # only whole lines, the same in all
    at = end
    while at > 0:
        at = data.rfind(b"\n", 0, at - 1) + 1
        if pattern.match(data, at) and data.find(b"\n", at) < end and (not heading or _blank_before(data, at)):
            while heading and _blank_before(data, at):
                at = data.rfind(b"\n", 0, at - 1) + 1
            return max(at, _frontmatter_end(data))
    return 0


def _cuts(body: bytes, pattern, heading: bool) -> list[int]:
    """Where each entry begins in ``body``: at its line, or at the blank lines before a heading."""
    if pattern is None:  # no entry lines at all: each line of text is one, after the title
        cuts, at = [], 0
        for line in lines(body):
            if line.strip() and not (_TITLE.match(line) and not cuts):
                cuts.append(at)
            at += len(line)
        return cuts
    starts = [m.start() for m in _anchored(pattern).finditer(body)]
    if not heading:
        return starts
    cuts: list[int] = []
    for at in starts:
        if at and not _blank_before(body, at):
            continue  # a heading inside an entry's text: it needs a blank line before it
        first, low = at, (cuts[-1] + 1 if cuts else 0)
        while first > low and _blank_before(body, first):  # a heading's blank lines go with it
            first = body.rfind(b"\n", 0, first - 1) + 1
        cuts.append(first)
    return cuts


def _blank_before(body: bytes, at: int) -> bool:
    """Whether the line ending just before ``at`` is blank."""
    if at == 0:
        return False
    begin = body.rfind(b"\n", 0, at - 1) + 1
    return not body[begin:at].strip()


def _day(path: str) -> str:
    match = _DAY.search(path)
    return f"{match[1]}-{match[2]}-{match[3]}" if match else ""


def _time(text: bytes, reading) -> str:
    pattern, day = reading or (None, "")
    if pattern is None or pattern is _HEADING:
        return ""
    match = pattern.match(text.lstrip(b"\r\n"))
    if not match:
        return ""
    raw = match[1].decode()
    if pattern is _JOURNAL:
        return f"{day}T{raw}" if day else raw
    return _instant(raw)


def _instant(raw: str) -> str:
    """A date and time as sortable text; with an offset, in UTC."""
    try:
        moment = datetime.fromisoformat(raw.replace(" ", "T").replace("Z", "+00:00"))
    except ValueError:
        return raw.replace(" ", "T")
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds" if raw.count(":") >= 2 else "minutes")


# -- versions split alike ----------------------------------------------------------------


def _refine(parsed: list[tuple[bytes, list[Entry]] | None]) -> None:
    """Where an entry is another version's entry followed by more, split it in two."""
    headers = {p[0] for p in parsed if p is not None}
    for n, found in enumerate(parsed):
        if found is None:
            continue
        header, entries = found
        base = max((h for h in headers if header.startswith(h) and header != h), key=len, default=None)
        if base is not None and _at_line(header, len(base)):
            entries.insert(0, Entry(header[len(base):], follows=True))
            parsed[n] = (base, entries)
    versions = [p[1] for p in parsed if p is not None]
    while True:
        counts: dict[bytes, int] = {}
        for entries in versions:
            for text in {e.text for e in entries}:
                counts[text] = counts.get(text, 0) + 1
        lone = [text for text, n in counts.items() if n < len(versions)]  # only those can be another's plus more
        if not lone:
            return
        known: dict[bytes, list[bytes]] = {}
        for text in counts:
            known.setdefault(_first_line(text), []).append(text)
        cuts = {}
        for text in lone:
            shorter = [t for t in known[_first_line(text)]
                       if len(t) < len(text) and text.startswith(t) and _at_line(text, len(t))]
            if shorter:
                cuts[text] = len(max(shorter, key=len))
        if not cuts:
            return
        for entries in versions:
            i = 0
            while i < len(entries):
                entry = entries[i]
                if entry.text in cuts:
                    cut = cuts[entry.text]
                    head = Entry(entry.text[:cut], entry.follows, entry.prev, entry.reading)
                    entries[i:i + 1] = [head, Entry(entry.text[cut:], True, head, entry.reading)]
                    if i + 2 < len(entries):
                        entries[i + 2].prev = entries[i + 1]
                i += 1


def _first_line(text: bytes) -> bytes:
    stripped = text.lstrip(b"\r\n")
    return stripped.split(b"\n", 1)[0]


def _at_line(text: bytes, at: int) -> bool:
    return text[at - 1:at] == b"\n"
