"""The repository as the laws see it: git run in the caller's environment, objects read in bulk.

Inside a hook git's variables are meant: GIT_INDEX_FILE names the index being committed
(a temporary one when `git commit` is given paths), and in pre-receive the pushed objects
sit in a quarantine that only the inherited environment reaches. So hooks inherit it.
An in-process caller gets store.git's sealed environment, keeping GIT_INDEX_FILE when set.
"""

import copy
import hashlib
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
        self._sizes: dict[str, int | None] = {}

    def run(self, *args: str, input: bytes | None = None, check: bool = True):
        return git.run(self.root, *args, input=input, check=check, sealed=not self.inherit,
                       env=self.env, text=False)

    def stream(self, *args: str, block: int = 1 << 20):
        """git's output in blocks as it comes; GitError (git's last words) when it fails.
        Left early, the process is ended."""
        import subprocess

        from souveraine.errors import GitError

        environment = git.sealed_env(self.root, self.env) if not self.inherit else {**os.environ, **self.env}
        try:
            process = subprocess.Popen(["git", "-C", str(self.root), *args], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH; install git and try again") from None
        try:
            while data := process.stdout.read(block):
                yield data
            error = process.stderr.read().decode(errors="replace")
            if process.wait() != 0:
                raise GitError(f"git {args[0]} failed: {git._last_line(error) or 'exit ' + str(process.returncode)}")
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()
            process.stderr.close()

    def out(self, *args: str, input: bytes | None = None, check: bool = True) -> str:
        return self.run(*args, input=input, check=check).stdout.decode("utf-8", errors="surrogateescape")

    def read(self, names: list[str], sizes: list[str] = ()) -> dict[str, bytes | None]:
        """Objects by name (an oid, ``rev:path`` or ``:path`` for the index); None when missing.

        All names not read before are fetched by one `git cat-file`; so are the sizes of
        ``sizes`` (objects whose content is not wanted: see ``grows``), in the same process.
        """
        for name in (*names, *sizes):
            if "\n" in name:  # cannot be asked of cat-file's line protocol, and no memory file is named so
                self._objects[name] = None
        wanted = [n for n in dict.fromkeys(names) if n not in self._objects]
        sized = [n for n in dict.fromkeys(sizes) if n not in self._objects and n not in self._sizes and n not in wanted]
        if sized:
            self._fetch(wanted, sized)
        elif wanted:
            stdout = self.run("cat-file", "--batch", input="".join(n + "\n" for n in wanted).encode()).stdout
            self._keep(wanted, _parse_batch(stdout, [True] * len(wanted)))
        return {n: self._objects[n] for n in names}

    def _fetch(self, wanted: list[str], sized: list[str]) -> None:
        """Contents and sizes from one `git cat-file --batch-command` (git 2.36), or two processes before it."""
        lines = [f"contents {n}\n" for n in wanted] + [f"info {n}\n" for n in sized]
        done = self.run("cat-file", "--batch-command", "--buffer", input="".join(lines).encode(), check=False)
        if done.returncode == 0:
            found = _parse_batch(done.stdout, [True] * len(wanted) + [False] * len(sized))
        else:
            found = _parse_batch(self.run("cat-file", "--batch", input="".join(n + "\n" for n in wanted).encode()).stdout,
                                 [True] * len(wanted)) if wanted else []
            found += _parse_batch(self.run("cat-file", "--batch-check", input="".join(n + "\n" for n in sized).encode()).stdout,
                                  [False] * len(sized))
        self._keep(wanted, found[:len(wanted)])
        self._sizes.update(zip(sized, found[len(wanted):]))

    def _keep(self, names: list[str], found: list) -> None:
        self._objects.update(zip(names, found))
        self._sizes.update((n, None if data is None else len(data)) for n, data in zip(names, found))

    def size(self, name: str) -> int | None:
        """An object's size in bytes (read, or asked for in ``read``'s ``sizes``); None when missing."""
        if name not in self._sizes:
            self.read([], [name])
        return self._sizes.get(name)

    def grows(self, old: str, data: bytes) -> bool:
        """Whether ``data`` begins with the whole blob ``old`` (an object id).

        An old blob not read is not read now: when ``data`` begins with it, its first
        ``size(old)`` bytes hashed as git names a blob give back ``old`` itself.
        """
        known = self._objects.get(old, False)
        if known is False and old in self._sizes and self._sizes[old] is not None and len(old) in _HASHES:
            size = self._sizes[old]
            if size > len(data):
                return False
            digest = _HASHES[len(old)](b"blob %d\0" % size)
            digest.update(memoryview(data)[:size])
            return digest.hexdigest() == old
        return data.startswith(self.blob(old) or b"")

    def blob(self, name: str) -> bytes | None:
        found = self._objects.get(name, False)
        return self.read([name])[name] if found is False else found

    def sibling(self) -> "Repo":
        """The same repository, as it is run, with a cache of its own (a chunk of a replay)."""
        other = copy.copy(self)
        other._objects, other._sizes = {}, {}
        return other


_HASHES = {40: hashlib.sha1, 64: hashlib.sha256}   # a blob's id by the repository's object format


def _parse_batch(stdout: bytes, contents: list[bool]) -> list:
    """Per name asked: `<oid> <type> <size>\\n` then, when its content was asked (``contents``),
    `<content>\\n`; or `<name> missing\\n`. The content (bytes) or the size (int) of a blob; None else."""
    found, at = [], 0
    for content in contents:
        end = stdout.index(b"\n", at)
        header = stdout[at:end].split(b" ")
        at = end + 1
        if len(header) != 3 or not header[2].isdigit():
            found.append(None)  # missing or ambiguous
            continue
        size = int(header[2])
        if not content:
            found.append(size if header[1] == b"blob" else None)
            continue
        found.append(stdout[at:at + size] if header[1] == b"blob" else None)
        at += size + 1
    return found
