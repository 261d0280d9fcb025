"""The repository as the laws see it: git run in the caller's environment, objects read in bulk.

Inside a hook git's variables are meant: GIT_INDEX_FILE names the index being committed
(a temporary one when `git commit` is given paths), and in pre-receive the pushed objects
sit in a quarantine that only the inherited environment reaches. So hooks inherit it.
An in-process caller gets store.git's sealed environment, keeping GIT_INDEX_FILE when set.
"""

import copy
import os
from pathlib import Path

from souveraine.store import git


class Repo:
    def __init__(self, root: Path, *, inherit: bool = False, follow_index: bool = True):
        self.root = Path(root)
        self.inherit = inherit
        self.env: dict[str, str] = {}
        index = os.environ.get("GIT_INDEX_FILE") if follow_index else None
        if index and not inherit:
            self.env["GIT_INDEX_FILE"] = os.path.abspath(index)
        self._objects: dict[str, bytes | None] = {}

    def run(self, *args: str, input: bytes | None = None, check: bool = True):
        return git.run(self.root, *args, input=input, check=check, sealed=not self.inherit,
                       env=self.env, text=False)

    def out(self, *args: str, input: bytes | None = None, check: bool = True) -> str:
        return self.run(*args, input=input, check=check).stdout.decode("utf-8", errors="surrogateescape")

    def read(self, names: list[str]) -> dict[str, bytes | None]:
        """Objects by name (an oid, ``rev:path`` or ``:path`` for the index); None when missing.

        All names not read before are fetched by one `git cat-file --batch`.
        """
        for name in names:
            if "\n" in name:  # cannot be asked of cat-file's line protocol, and no memory file is named so
                self._objects[name] = None
        wanted = [n for n in dict.fromkeys(names) if n not in self._objects]
        if wanted:
            stdout = self.run("cat-file", "--batch", input="".join(n + "\n" for n in wanted).encode()).stdout
            self._objects.update(zip(wanted, _parse_batch(stdout, len(wanted))))
        return {n: self._objects[n] for n in names}

    def blob(self, name: str) -> bytes | None:
        return self.read([name])[name]

    def sibling(self) -> "Repo":
        """The same repository, as it is run, with a cache of its own (a chunk of a replay)."""
        other = copy.copy(self)
        other._objects = {}
        return other


def _parse_batch(stdout: bytes, count: int) -> list[bytes | None]:
    """`<oid> <type> <size>\\n<content>\\n` per object, or `<name> missing\\n`."""
    found, at = [], 0
    for _ in range(count):
        end = stdout.index(b"\n", at)
        header = stdout[at:end].split(b" ")
        at = end + 1
        if len(header) != 3 or not header[2].isdigit():
            found.append(None)  # missing or ambiguous
            continue
        size = int(header[2])
        found.append(stdout[at:at + size] if header[1] == b"blob" else None)
        at += size + 1
    return found
