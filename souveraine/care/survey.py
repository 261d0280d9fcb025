"""One pass over a memory's notes: their properties, their links, who links to whom.

doctor and defrag both start from a survey, so both read the memory the same way. The
properties are read for reading only (``notes.parse_quick``); what is changed is parsed again.
"""

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from souveraine.care.links import Vault
from souveraine.errors import NoteError
from souveraine.store import notes as notefile
from souveraine.store.memory import Memory

INDEX_NAMES = ("_index", "index", "readme")


@dataclass
class Survey:
    memory: Memory
    vault: Vault
    notes: dict[str, notefile.Note] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)   # path -> why its frontmatter fails

    @cached_property
    def inbound(self) -> dict[str, set[str]]:
        return self.vault.inbound()

    def append_only(self, path: str) -> bool:
        return self.memory.append_only(path)

    def generated(self, path: str) -> bool:
        note = self.notes.get(path)
        return bool(note is not None and note.get("generated") is True)

    def index(self, path: str) -> bool:
        note = self.notes.get(path)
        stem = posixpath.splitext(posixpath.basename(path))[0].lower()
        return stem in INDEX_NAMES or (note is not None and note.get("type") == "index")

    def body(self, path: str) -> str:
        note = self.notes.get(path)
        return note.body if note is not None else self.vault.text(path)


def survey(memory: Memory, progress: Callable[[int, int], None] | None = None) -> Survey:
    vault = Vault.of(memory.root)
    found = Survey(memory, vault)
    paths = vault.notes
    for n, path in enumerate(paths, 1):
        try:
            found.notes[path] = notefile.parse_quick(vault.text(path), path)
        except NoteError as exc:
            found.unreadable[path] = str(exc)
        if progress:
            progress(n, len(paths))
    return found
