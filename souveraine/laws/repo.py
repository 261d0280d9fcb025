"""The repository as the laws see it: git run in the caller's environment, objects read in bulk.

Inside a hook git's variables are meant: GIT_INDEX_FILE names the index being committed
(a temporary one when `git commit` is given paths), and in pre-receive the pushed objects
sit in a quarantine that only the inherited environment reaches. So hooks inherit it.
An in-process caller gets store.git's sealed environment, keeping GIT_INDEX_FILE when set.
"""

import copy
import os
import threading
from collections import OrderedDict
from contextlib import contextmanager
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
        self._open: _Open | None = None       # while ``kept_open``: git's processes and the recent blobs

    def run(self, *args: str, input: bytes | None = None, check: bool = True):
        return git.run(self.root, *args, input=input, check=check, sealed=not self.inherit,
                       env=self.env, text=False)

    def stream(self, *args: str, block: int = 1 << 20):
        """git's output in blocks as it comes; GitError (git's last words) when it fails.
        Left early, the process is ended."""
        process = self._popen(args)
        _widen(process.stdout)
        try:
            while data := process.stdout.read(block):
                yield data
            _done(process, args)
        finally:
            _end(process)

    @contextmanager
    def kept_open(self):
        """Within: one `git cat-file --batch-command` per thread serves every read (a replay's
        chunks and the witness's reads start no process each), and the blobs read lately are
        kept across chunks (``recent``), so a file's previous version is at hand when it changes."""
        if self._open is not None:
            yield self
            return
        self._open = _Open()
        try:
            yield self
        finally:
            self._open.close()
            self._open = None

    def at_hand(self, oid: str) -> bytes | None:
        """A blob already read (by this chunk, or lately in this replay), without asking git;
        None when it is not."""
        found = self._objects.get(oid)
        if found is None and self._open is not None:
            found = self._open.recent(oid)
        return found

    def _popen(self, args, stdin=None):
        import subprocess

        from souveraine.errors import GitError

        environment = git.sealed_env(self.root, self.env) if not self.inherit else {**os.environ, **self.env}
        try:
            return subprocess.Popen(["git", "-C", str(self.root), *args], stdin=stdin or subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH; install git and try again") from None

    def out(self, *args: str, input: bytes | None = None, check: bool = True) -> str:
        return self.run(*args, input=input, check=check).stdout.decode("utf-8", errors="surrogateescape")

    def read(self, names: list[str], sizes: list[str] = ()) -> dict[str, bytes | None]:
        """Objects by name (an oid, ``rev:path`` or ``:path`` for the index); None when missing.

        All names not read before are fetched by one `git cat-file`; so are the sizes of
        ``sizes`` (objects whose content is not wanted: see ``grows``), in the same process.
        """
        known = self._objects
        if not sizes and all(n in known for n in names):     # a rule asking again for what a chunk read
            return {n: known[n] for n in names}
        for name in (*names, *sizes):
            if "\n" in name:  # cannot be asked of cat-file's line protocol, and no memory file is named so
                self._objects[name] = None
        if self._open is not None:
            self._recall([*names, *sizes])
        wanted = [n for n in dict.fromkeys(names) if n not in self._objects]
        sized = [n for n in dict.fromkeys(sizes) if n not in self._objects and n not in self._sizes and n not in wanted]
        if sized:
            self._fetch(wanted, sized)
        elif wanted:
            self._keep(wanted, self._cat("--batch", wanted, [True] * len(wanted)))
        return {n: self._objects[n] for n in names}

    def _fetch(self, wanted: list[str], sized: list[str]) -> None:
        """Contents and sizes from one `git cat-file --batch-command` (git 2.36), or two processes before it."""
        lines = [f"contents {n}" for n in wanted] + [f"info {n}" for n in sized]
        found = self._cat("--batch-command", lines, [True] * len(wanted) + [False] * len(sized), check=False)
        if found is None:
            found = self._cat("--batch", wanted, [True] * len(wanted)) if wanted else []
            found += self._cat("--batch-check", sized, [False] * len(sized))
        self._keep(wanted, found[:len(wanted)])
        self._sizes.update(zip(sized, found[len(wanted):]))

    def _recall(self, names: list[str]) -> None:
        """Take what the replay read lately from the kept blobs instead of asking git again."""
        for name in names:
            if name not in self._objects:
                data = self._open.recent(name)
                if data is not None:
                    self._objects[name] = data
                    self._sizes[name] = len(data)

    def _cat(self, mode: str, lines: list[str], contents: list[bool], check: bool = True) -> list | None:
        """One `git cat-file` over ``lines``, its answers read as they come (fed by another thread,
        so neither side waits on a full pipe); None when git fails and ``check`` is off.
        While ``kept_open``, the thread's long-lived process answers instead."""
        import subprocess

        if self._open is not None and self._open.usable:
            found = self._open.ask(self, lines if mode == "--batch-command" else
                                   [("contents " if c else "info ") + n for n, c in zip(lines, contents)], contents)
            if found is not None:
                return found
        args = ("cat-file", mode, "--buffer")
        process = self._popen(args, stdin=subprocess.PIPE)
        _widen(process.stdout)
        writer = threading.Thread(target=_feed, args=(process.stdin, "".join(n + "\n" for n in lines).encode()),
                                  daemon=True)
        writer.start()
        try:
            found = _answers(process.stdout, contents)
            writer.join()
            failed = _done(process, args, check)
        finally:
            _end(process)
        return None if failed or found is None else found

    def _keep(self, names: list[str], found: list) -> None:
        self._objects.update(zip(names, found))
        self._sizes.update((n, None if data is None else len(data)) for n, data in zip(names, found))
        if self._open is not None:
            self._open.remember(names, found)

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
        if known is False and old in self._sizes and self._sizes[old] is not None and len(old) in _WIDTHS:
            size = self._sizes[old]
            if size > len(data):
                return False
            digest = _hash(len(old), size)(b"blob %d\0" % size)
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


_WIDTHS = (40, 64)    # a blob's id by the repository's object format: SHA-1, SHA-256


def _hash(width: int, size: int):
    """A blob's hash: CPython's own below a megabyte (a commit's few notes: `hashlib` would load
    OpenSSL for them), OpenSSL's, faster on long data, above."""
    if size < 1 << 20:
        from souveraine.store import hashing
    else:
        import hashlib as hashing
    return hashing.sha1 if width == 40 else hashing.sha256


_PIPE = 1 << 20       # bytes a pipe from git holds (Linux): fewer switches between git and us on large blobs


class _Open:
    """What a Repo keeps while ``kept_open``: a `git cat-file --batch-command --buffer` per
    thread (each asked under its own turn; `flush` ends a request), and the blobs read lately,
    by object id, up to ``BUDGET`` bytes (older ones dropped first)."""

    BUDGET = 64 << 20

    def __init__(self):
        self.usable = True
        self._lock = threading.Lock()
        self._processes: dict[int, object] = {}
        self._blobs: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0

    def ask(self, repo: "Repo", lines: list[str], contents: list[bool]) -> list | None:
        """The answers to ``lines`` (`contents X` / `info X`); None when git cannot serve them so
        (before 2.36, or it ended): the caller asks a process of its own."""
        import subprocess

        key = threading.get_ident()
        process = self._processes.get(key)
        if process is None:
            process = repo._popen(("cat-file", "--batch-command", "--buffer"), stdin=subprocess.PIPE)
            _widen(process.stdout)
            with self._lock:
                self._processes[key] = process
        request = "".join(n + "\n" for n in lines).encode() + b"flush\n"
        if len(request) <= 16384:      # fits the pipe: written at once
            _feed(process.stdin, request, close=False)
            writer = None
        else:
            writer = threading.Thread(target=_feed, args=(process.stdin, request, False), daemon=True)
            writer.start()
        found = _answers(process.stdout, contents)
        if writer is not None:
            writer.join()
        if found is None:
            self.usable = False
        return found

    def remember(self, names: list[str], found: list) -> None:
        with self._lock:
            for name, data in zip(names, found):
                if data is None or len(name) not in _WIDTHS or name in self._blobs:
                    continue
                self._blobs[name] = data
                self._bytes += len(data)
            while self._bytes > self.BUDGET and self._blobs:
                self._bytes -= len(self._blobs.popitem(last=False)[1])

    def recent(self, oid: str) -> bytes | None:
        return self._blobs.get(oid)

    def close(self) -> None:
        for process in self._processes.values():
            try:
                process.stdin.close()
            except OSError:
                pass
            _end(process)
        self._processes.clear()
        self._blobs.clear()


def _widen(pipe) -> None:
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE)
    except (ImportError, AttributeError, OSError):   # not Linux, or a lower limit: the default pipe
        pass


def _answers(stdout, contents: list[bool]) -> list | None:
    """Per line asked: `<oid> <type> <size>\\n` then, when its content was asked (``contents``),
    `<content>\\n`; or `<name> missing\\n`. The content (bytes) or size (int) of a blob; None for
    anything else. None for all when git's answers stop short (it failed)."""
    found = []
    for content in contents:
        header = stdout.readline().split()
        if not header:
            return None
        if len(header) != 3 or not header[2].isdigit():
            found.append(None)  # missing or ambiguous
            continue
        size = int(header[2])
        if not content:
            found.append(size if header[1] == b"blob" else None)
            continue
        data = stdout.read(size)
        stdout.read(1)
        found.append(data if header[1] == b"blob" else None)
    return found


def _feed(stdin, data: bytes, close: bool = True) -> None:
    try:
        stdin.write(data)
        stdin.close() if close else stdin.flush()
    except (BrokenPipeError, OSError):   # git ended early: its exit status tells why
        pass


def _done(process, args, check: bool = True) -> bool:
    """Whether git failed; with ``check``, GitError with its last words instead."""
    from souveraine.errors import GitError

    error = process.stderr.read().decode(errors="replace")
    if process.wait() == 0:
        return False
    if check:
        raise GitError(f"git {args[0]} failed: {git._last_line(error) or 'exit ' + str(process.returncode)}")
    return True


def _end(process) -> None:
    if process.poll() is None:
        process.kill()
    process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None and not pipe.closed:
            try:
                pipe.close()
            except OSError:
                pass
