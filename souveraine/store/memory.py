"""Memory: one git repository of Markdown files, found, checked and changed in one place."""

import os
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path, PurePosixPath

from souveraine.errors import ConfigError, NotAMemory, Refused, UsageError
from souveraine.store import confine, git, layout
from souveraine.store.atomic import atomic_append, atomic_write
from souveraine.store.intent import Intent
from souveraine.store.lock import locked

CONFIG_FILE = "souveraine.toml"
CACHE_DIR = ".souveraine"


class Memory:
    """A memory on disk. Paths given to it are POSIX paths relative to its root."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()

    def __repr__(self) -> str:
        return f"Memory({str(self.root)!r})"

    # -- finding -------------------------------------------------------------------------

    @classmethod
    def find(cls, explicit: str | os.PathLike | None = None, cwd: Path | None = None) -> "Memory":
        """From ``--memory``, else $SOUVERAINE_MEMORY, else the nearest souveraine.toml above."""
        chosen = explicit or os.environ.get("SOUVERAINE_MEMORY")
        if chosen:
            root = Path(chosen).expanduser()
            if not (root / CONFIG_FILE).is_file():
                source = "--memory" if explicit else "$SOUVERAINE_MEMORY"
                raise NotAMemory(f"{root} is not a memory (no {CONFIG_FILE}; {source}); run 'souveraine init {root}'")
            return cls(root)
        start = Path(cwd or Path.cwd()).resolve()
        for folder in (start, *start.parents):
            if (folder / CONFIG_FILE).is_file():
                return cls(folder)
        raise NotAMemory(f"no memory here or above {start}; run 'souveraine init' or pass --memory PATH")

    # -- paths ---------------------------------------------------------------------------

    def path(self, relpath: str) -> Path:
        """The absolute path of ``relpath``; refuses anything that escapes the memory."""
        rel = PurePosixPath(str(relpath).replace("\\", "/"))
        if rel.is_absolute() or ".." in rel.parts or str(rel) in ("", "."):
            raise UsageError(f"'{relpath}' is not a path inside the memory; give a relative path like 'memories/x.md'")
        full = self.root.joinpath(*rel.parts)
        if not confine.inside(self.root, full):
            raise UsageError(f"'{relpath}' leads outside the memory (through a link), or round a loop of links; "
                             "refusing (doctor lists it)")
        return full

    def rel(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.root).as_posix()

    @cached_property
    def cache(self) -> Path:
        """``.souveraine/``: the spool, the lock, the caches. A link that takes it out of the
        memory is refused: turns and locks would be kept somewhere else."""
        folder = self.root / CACHE_DIR
        if confine.leads_out(self.root, folder):
            target = os.path.realpath(folder)
            raise ConfigError(f"{folder} is a link that leads outside the memory (to {target}); put the folder itself "
                              f"there ('rm {folder} && mv {target} {folder}')", code="cache_outside")
        return folder

    def exists(self, relpath: str) -> bool:
        return self.path(relpath).exists()

    def read_text(self, relpath: str) -> str:
        return self.path(relpath).read_text(encoding="utf-8")

    # -- config --------------------------------------------------------------------------

    @cached_property
    def config(self):
        from souveraine.store import config

        return config.load(self.root / CONFIG_FILE, cache=self.root / CACHE_DIR / "config.json")

    @property
    def project_id(self) -> str:
        return self.config["project"]["id"]

    def append_only(self, relpath: str) -> bool:
        return layout.is_append_only(relpath, tuple(self.config["laws"]["append_only"]))

    # -- git and changes -----------------------------------------------------------------

    def git(self, *args: str, **kwargs):
        return git.run(self.root, *args, **kwargs)

    @contextmanager
    def lock(self, timeout: float | None = None):
        """The memory's lock; whoever takes it first mends what a crash left (store.repair)."""
        wait = self.config["git"]["lock_timeout"] if timeout is None else timeout
        with locked(self.cache / "lock", wait) as fresh:
            if fresh:
                from souveraine.store import repair

                repair.quick(self)
            yield

    @contextmanager
    def change(self, message: str, *, commit: bool = True):
        """Write files, then commit them as one; on any failure put every file back.

        ``with memory.change("feat(memory): remember x") as change: change.write(...)``.
        The lock is held throughout; ``change.sha`` is the commit (None when nothing changed).
        ``change.then`` holds what must follow the commit before the change is over (the
        spool files it journaled leave the spool there, while its intent still says so).
        Refused, before anything is written, while git has a merge (rebase, cherry-pick,
        revert) under way: a commit then would carry its conflict markers.
        """
        with self.lock():
            self.refuse_mid_operation()
            change = Change(self, message)
            try:
                yield change
                if commit:
                    change.sha = git.commit(self.root, change.paths, change.message, author=self._author())
            except BaseException:
                change.rollback()
                change.intent.close()
                raise
            for then in change.then:   # a kill in here leaves the intent, and store.repair finishes it
                then()
            change.intent.close()

    def refuse_mid_operation(self) -> None:
        operation = git.in_progress(self.root)
        if operation:
            raise Refused(f"a {operation} is in progress in {self.root}; {git.how_to_finish(operation)}, "
                          "then run this again", code="merge_in_progress")

    def _author(self) -> dict[str, str]:
        section = self.config["git"]
        return git.author_env(self.root, section["author_name"], section["author_email"])


class Change:
    """The files one command writes; everything it touches can be put back."""

    def __init__(self, memory: Memory, message: str):
        self.memory = memory
        self.message = message
        self.sha: str | None = None
        self._before: dict[str, bytes | None] = {}
        self.intent = Intent(memory)
        self.then: list = []

    @property
    def paths(self) -> list[str]:
        return list(self._before)

    def _remember(self, relpath: str) -> Path:
        full = self.memory.path(relpath)
        if relpath not in self._before:
            self.intent.add(relpath, full)
            self._before[relpath] = full.read_bytes() if full.exists() else None
        return full

    def write(self, relpath: str, text: str | bytes) -> None:
        atomic_write(self._remember(relpath), text)

    def append(self, relpath: str, text: str) -> None:
        atomic_append(self._remember(relpath), text)

    def write_note(self, relpath: str, note) -> None:
        from souveraine.store import notes

        self.write(relpath, notes.dumps(note))

    def delete(self, relpath: str) -> None:
        full = self._remember(relpath)
        full.unlink(missing_ok=True)

    def touched(self, relpath: str) -> None:
        """Record a path written by other means (a git mv, a tool) so it is committed too."""
        self._remember(relpath)

    def rollback(self) -> None:
        for relpath, before in self._before.items():
            full = self.memory.root / relpath
            if before is None:
                full.unlink(missing_ok=True)
            else:
                atomic_write(full, before)
        if self._before and git.head(self.memory.root):
            git.run(self.memory.root, "reset", "-q", "--", *self._before, check=False)
