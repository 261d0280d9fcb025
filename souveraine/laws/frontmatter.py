"""Every Markdown file's frontmatter parses, as store.notes reads it.

Parsing YAML is the costliest check the laws make (ruamel's round-trip reader takes
milliseconds a note), so a file whose frontmatter block is byte-identical to its
parent's (every journal append) is not parsed again; a block of flat properties — each
line a key and a quoted or plain one-line value, or an item of a list — is accepted by
a line-by-line read (a tenth of libyaml's cost: verify reads one per memory ever
written); a block that libyaml (PyYAML's C reader, there through python-frontmatter)
composes cleanly, with no duplicate key, is accepted without ruamel. Everything else gets
store.notes' verdict, line and words.
"""

import re

from souveraine.errors import NoteError
from souveraine.laws.breach import Breach

_MARKDOWN = re.compile(r"\.(?:md|markdown)$", re.IGNORECASE)
# The fences as store.notes (python-frontmatter) finds them; group 1 is the YAML.
_BLOCK = re.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n(.*?\n)??-{3,}[ \t]*(?:\r?\n|\Z)", re.DOTALL)


def applies(path: str) -> bool:
    return _MARKDOWN.search(path) is not None


def block(data: bytes) -> bytes | None:
    """The raw frontmatter block, fences included; the whole file when a fence is left open."""
    if not data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return None
    match = _BLOCK.match(data)
    return match.group(0) if match else data


def breaches(path: str, data: bytes, before: list[bytes]) -> list[Breach]:
    fm = block(data)
    if fm is None or any(block(old) == fm for old in before) or _flat(fm) or _composes(fm):
        return []
    from souveraine.store import notes

    try:
        notes.parse(data.decode("utf-8", errors="replace"), path)
    except NoteError as exc:
        return [Breach(path, "bad_frontmatter", str(exc))]
    return []


# The flat read: a strict subset of what YAML reads as one mapping; anything else (a tab, a
# control character, a flow collection, a value an indicator opens, `: ` or ` #` inside a
# plain value) is left to libyaml.
_KEY_LINE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_-]*):(?: +(.*?))? *")
_ITEM_LINE = re.compile(r"( *)- +(.*?) *")
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"[^\"\\]*\"")
_UNREADABLE = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_INDICATORS = "-?:,[]{}#&*!|>'\"%@`"


def _flat(fm: bytes) -> bool:
    """Whether the block is flat properties with no key twice (then YAML reads it as one mapping)."""
    try:
        text = fm.decode("utf-8")
    except UnicodeDecodeError:
        return False
    lines = text.split("\n")
    if lines[0] != "---" or _UNREADABLE.search(text):
        return False
    keys: set[str] = set()
    indent: str | bool = False        # the open list's items' indentation; True before its first; False: none open
    for line in lines[1:]:
        if line == "---":
            return True
        if not line.strip(" ") or line.lstrip(" ").startswith("#"):
            continue
        item = _ITEM_LINE.fullmatch(line)
        if item:
            if indent is False or indent not in (True, item[1]) or not item[2] or not _value(item[2]):
                return False
            indent = item[1]
            continue
        key = _KEY_LINE.fullmatch(line)
        if not key or key[1] in keys or (key[2] and not _value(key[2])):
            return False
        keys.add(key[1])
        indent = not key[2]
    return False


def _value(raw: str) -> bool:
    """A one-line scalar YAML reads as written: quoted, `[]`, or plain."""
    if raw[0] in "'\"":
        return _QUOTED.fullmatch(raw) is not None
    if raw == "[]":
        return True
    return raw[0] not in _INDICATORS and ": " not in raw and " #" not in raw and not raw.endswith(":")


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
