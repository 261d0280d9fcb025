"""Every Markdown file's frontmatter parses, as store.notes reads it.

Parsing YAML is the costliest check the laws make (ruamel's round-trip reader takes
milliseconds a note), so a file whose frontmatter block is byte-identical to its
parent's (every journal append) is not parsed again; a block of flat properties
(store.notes.flat: each line a key and a quoted or plain one-line value, or an item of a
list) is accepted by a line-by-line read (a third of libyaml's cost: verify reads one per
memory ever written); a block that libyaml (PyYAML's C reader, there through python-frontmatter)
composes cleanly, with no duplicate key, is accepted without ruamel. Everything else gets
store.notes' verdict, line and words.

The commonest blocks (a memory's, a journal day's: keys with one-line values and lists of
them) are recognised by one regular expression first, ten times cheaper than the
line-by-line read, and accepting only blocks that read accepts (``simple``). A file that
grew from its parent's version (a proven append, laws/repo.py's ``grows``) keeps its
block when the block ends inside the old length: the old version is not read at all.
"""

import re
from functools import lru_cache

from souveraine.errors import NoteError
from souveraine.language import patterns
from souveraine.laws.breach import Breach

_MARKDOWN = patterns.compile(r"\.(?:md|markdown)$", re.IGNORECASE)
# The fences as store.notes (python-frontmatter) finds them; group 1 is the YAML. Lazy line by
# line, not character by character (the same first closing fence, at a tenth of the cost).
_BLOCK = patterns.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n((?:[^\n]*+\n)+?)??-{3,}[ \t]*(?:\r?\n|\Z)")


# A strict subset of store.notes.flat, as one expression (tests/laws/test_frontmatter.py holds
# it to that): `key: value` lines and `key:` lines followed by `- item` lines alike indented;
# a value quoted, `[]`, or plain (not opened by an indicator, no `: `, ` #`, trailing `:` or
# double space); printable characters only (flat's _UNREADABLE refuses the rest).
# The printable classes are written as the complement of what is not printable: spelled as their
# own ranges they took Python's re 60–170 ms to compile (its charset optimiser visits every BMP
# code point of a range), paid by every hook and every persist; this way, under 10 ms, and only
# when a block needs the expression.
_UNPRINTABLE = r"\x00-\x20\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
_PRINTABLE = f"[^{_UNPRINTABLE}]"
_PRINTABLE_NO = lambda chars: f"[^{_UNPRINTABLE}{re.escape(chars)}]"  # noqa: E731
_KEY = "[A-Za-z0-9_][A-Za-z0-9_-]*"


@lru_cache(maxsize=1)
def _simple() -> tuple[re.Pattern, re.Pattern]:
    plain = (_PRINTABLE_NO("-?:,[]{}#&*!|>'\"%@`")
             + f"(?:{_PRINTABLE_NO(':')}++|:(?={_PRINTABLE})| (?={_PRINTABLE_NO('#')}))*+")
    value = f"(?:'(?:{_PRINTABLE_NO(chr(39))}++| ++|'')*+'|\"(?:{_PRINTABLE_NO(chr(34) + chr(92))}++| ++)*+\"|\\[\\]|{plain})"
    whole = patterns.compile(f"---\n(?:{_KEY}: +{value}\n|{_KEY}:\n(?:( *)- +{value}\n(?:\\1- +{value}\n)*)?)*---\n?")
    return whole, patterns.compile(f"\n({_KEY}):")


def applies(path: str) -> bool:
    return _MARKDOWN.search(path) is not None


def block(data: bytes) -> bytes | None:
    """The raw frontmatter block, fences included; the whole file when a fence is left open."""
    if not data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return None
    match = _BLOCK.match(data)
    return match.group(0) if match else data


def breaches(path: str, data: bytes, before, grown: int | None = None) -> list[Breach]:
    """``before``: the file's versions in the parents (any iterable of bytes, read only when
    needed); ``grown``: the length of one of them that ``data`` begins with, when known."""
    fm = block(data)
    if fm is None or (grown is not None and _within(fm, grown)) or simple(fm) or _flat(fm) \
            or any(block(old) == fm for old in before) or _composes(fm):
        return []
    from souveraine.store import notes

    try:
        notes.parse(data.decode("utf-8", errors="replace"), path)
    except NoteError as exc:
        return [Breach(path, "bad_frontmatter", str(exc))]
    return []


def _within(fm: bytes, grown: int) -> bool:
    """Whether a block ends, its closing line whole, inside the first ``grown`` bytes: then the
    old version those bytes are holds the same block."""
    return len(fm) <= grown and fm.endswith(b"\n")


@lru_cache(maxsize=64)
def simple(fm: bytes) -> bool:
    """Whether the block is flat properties of the commonest shape (``_SIMPLE``, no key twice).
    Remembered a while: the witness's law asks again of the same memory."""
    try:
        text = fm.decode("utf-8")
    except UnicodeDecodeError:
        return False
    whole, keys_of = _simple()
    if whole.fullmatch(text) is None:
        return False
    keys = keys_of.findall(text)
    return len(keys) == len(set(keys))


def _flat(fm: bytes) -> bool:
    """Whether the block is flat properties (store.notes.flat): then YAML reads it as one mapping."""
    from souveraine.store import notes

    try:
        lines = fm.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return False
    if lines[0] != "---" or "---" not in lines[1:]:
        return False
    return notes.flat("\n".join(lines[1:lines.index("---", 1)])) is not None


def _composes(fm: bytes) -> bool:
    """Whether libyaml reads the block as one mapping (or nothing) without duplicate keys."""
    match = _BLOCK.match(fm)
    if match is None:
        return False
    try:
        import yaml

        node = yaml.compose((match.group(1) or b"").decode("utf-8"), Loader=yaml.CSafeLoader)
    except Exception:  # no libyaml, not UTF-8, or not YAML: let store.notes judge
        return False
    return node is None or (isinstance(node, yaml.MappingNode) and not _duplicates(node, yaml))


def _duplicates(node, yaml) -> bool:
    """ruamel refuses a duplicate key where libyaml silently keeps the last."""
    if isinstance(node, yaml.SequenceNode):
        return any(_duplicates(item, yaml) for item in node.value)
    if not isinstance(node, yaml.MappingNode):
        return False
    keys = [key.value for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
    return len(keys) != len(set(keys)) or any(_duplicates(value, yaml) for _, value in node.value)
