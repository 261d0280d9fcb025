"""Every Markdown file's frontmatter parses, as store.notes reads it.

Parsing YAML is the costliest check a hook makes, so a file whose frontmatter block is
byte-identical to its parent's (every journal append) is not parsed again.
"""

import re

from souveraine.errors import NoteError
from souveraine.laws.breach import Breach

_MARKDOWN = re.compile(r"\.(?:md|markdown)$", re.IGNORECASE)
_BLOCK = re.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n(?:.*?\n)??---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


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
    if fm is None or any(block(old) == fm for old in before):
        return []
    from souveraine.store import notes

    try:
        notes.parse(data.decode("utf-8", errors="replace"), path)
    except NoteError as exc:
        return [Breach(path, "bad_frontmatter", str(exc))]
    return []
