"""Every Markdown file's frontmatter parses, as store.notes reads it.

Parsing YAML is the costliest check the laws make (ruamel's round-trip reader takes
milliseconds a note), so a file whose frontmatter block is byte-identical to its
parent's (every journal append) is not parsed again; a block of flat properties
(store.notes.flat: each line a key and a quoted or plain one-line value, or an item of a
list) is accepted by a line-by-line read (a third of libyaml's cost: verify reads one per
memory ever written); a block that libyaml (PyYAML's C reader, there through python-frontmatter)
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
