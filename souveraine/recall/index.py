"""The index: `.souveraine/index.sqlite`, an SQLite FTS5 cache of the memory's words.

The files are the truth; this is a cache that can always be thrown away. It remembers the
commit it was built at and the files that were uncommitted then, so bringing it up to date
costs one `git status` when nothing changed, and otherwise a `git diff` from that commit plus
the files dirty now or before: each such file is read again from the work tree (what a person
sees in Obsidian is what recall finds), or forgotten when it is gone. A rename is a deletion
and an addition. A missing, corrupt or outdated index is rebuilt, silently.

Each text is stored once, in ``docs``; the FTS5 table ``fts`` indexes it through the view
``texts`` (external content), which also gives each turn its context: the turns around it
in the same session, searched with a low weight so a question finds the answer after it.

No lock: the index is not the memory. Every update runs in one SQLite write transaction
(``BEGIN IMMEDIATE``) that reads its starting point inside it, so two processes updating at
once queue and the second finds the work done; readers never wait (WAL).
"""

import json
import os
import sqlite3
import time
from functools import lru_cache
from pathlib import Path

from souveraine.errors import Refused
from souveraine.recall import sources
from souveraine.record import Frozen, Record
from souveraine.store import clock, confine, git
from souveraine.store.memory import Memory

FILE = "index.sqlite"
SCHEMA = "4"
BUSY_SECONDS = 30
SCAN_SECONDS = 300      # the longest a quick look goes without a scan of the whole work tree
HAND_EDITED = ("people", "domains", "reference")    # small folders whose every file is looked at each time
_TABLES = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER) WITHOUT ROWID;
CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT NOT NULL, block TEXT, kind TEXT, tier TEXT,
                  at TEXT, ts REAL, decays INTEGER, visibility TEXT, role TEXT, session TEXT, line INTEGER,
                  title TEXT, body TEXT, links TEXT, source TEXT);
CREATE INDEX docs_path ON docs(path, line);
CREATE TABLE mentions(doc INTEGER NOT NULL, since TEXT NOT NULL, until TEXT NOT NULL);
CREATE TABLE names(doc INTEGER NOT NULL, name TEXT NOT NULL);
"""
_INDEXES = ("CREATE INDEX docs_at ON docs(at); CREATE INDEX docs_ts ON docs(kind, ts);"
            " CREATE INDEX mentions_doc ON mentions(doc); CREATE INDEX mentions_since ON mentions(since, until);"
            " CREATE INDEX names_name ON names(name, doc); CREATE INDEX names_doc ON names(doc);")
_DROP = ("DROP VIEW IF EXISTS texts; DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files;"
         " DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS mentions;"
         " DROP TABLE IF EXISTS names;")
COLUMNS = ("title", "body", "context", "links")
# A turn's neighbour in its file, when it belongs to the same session.
_NEIGHBOUR = ("(SELECT CASE WHEN n.session = d.session THEN n.body END FROM docs n WHERE n.path = d.path"
              " AND n.line {op} d.line ORDER BY n.line {order} LIMIT 1)")
CONTEXTS = {
    "none": "NULL",
    "previous": _NEIGHBOUR.format(op="<", order="DESC"),
    "neighbors": ("(SELECT CASE WHEN p IS NULL THEN x WHEN x IS NULL THEN p ELSE p || char(10, 10) || x END"
                  f" FROM (SELECT {_NEIGHBOUR.format(op='<', order='DESC')} AS p,"
                  f" {_NEIGHBOUR.format(op='>', order='ASC')} AS x))"),
    "session": ("(SELECT group_concat(body, char(10, 10)) FROM (SELECT n.body FROM docs n WHERE n.path = d.path"
                " AND n.session = d.session AND n.id != d.id ORDER BY n.line))"),
}


class Options(Frozen):
    """How documents are tokenized and what context a turn carries (see docs/RECALL.md)."""

    __slots__ = _fields = ("tokenizer", "context")

    def __init__(self, tokenizer: str = "porter unicode61 remove_diacritics 2", context: str = "neighbors"):
        object.__setattr__(self, "tokenizer", tokenizer)
        object.__setattr__(self, "context", context)


class Update(Record):
    __slots__ = _fields = ("mode", "files", "removed", "documents", "bytes", "seconds", "commit")

    def __init__(self, mode: str, files: int = 0, removed: int = 0, documents: int = 0, bytes: int = 0,
                 seconds: float = 0.0, commit: str | None = None):
        self.mode = mode                # fresh | incremental | rebuild
        self.files = files              # files read
        self.removed = removed          # files forgotten
        self.documents = documents      # documents written
        self.bytes = bytes              # bytes read
        self.seconds, self.commit = seconds, commit

    def to_dict(self) -> dict:
        return self._asdict()


def location(memory: Memory) -> Path:
    return memory.cache / FILE


def connect(file: Path, **options) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, pow() available."""
    require_fts5()
    file.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(file, timeout=BUSY_SECONDS, isolation_level=None, **options)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    if not _has_pow(conn):
        import math

        conn.create_function("pow", 2, math.pow, deterministic=True)
    return conn


@lru_cache(maxsize=1)
def require_fts5() -> None:
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
    except sqlite3.OperationalError:
        raise Refused(f"this Python's SQLite ({sqlite3.sqlite_version}) has no FTS5, which recall needs; "
                      "run souveraine with a Python whose sqlite3 has FTS5 (python.org and most distributions' builds do)",
                      code="fts5_missing") from None


def fresh(memory: Memory, options: Options | None = None, scan: bool = False) -> tuple[sqlite3.Connection, Update]:
    """An open connection to an index that holds what the files hold now (see ``_incremental``
    for what is looked at; ``scan`` compares every file, as ``git status`` does)."""
    file, conn = location(memory), None
    try:
        if file.exists():
            conn = _open(file)
            meta = _meta(conn)
            if meta.get("schema") == SCHEMA and not (options and _options(meta) != options):
                return conn, _incremental(memory, conn, meta, scan)
            conn.close()
    except sqlite3.DatabaseError:
        if conn is not None:
            conn.close()
    update = rebuild(memory, options)
    return _open(file), update


def _open(file: Path) -> sqlite3.Connection:
    return _lend(file) if _kept is not None else connect(file)


# -- a long-lived process keeps its connections ---------------------------------------------

KEPT = 4                # idle connections kept at most (one per search running at once)
_kept: list["_Kept"] | None = None      # idle, oldest first; None: each search opens and closes its own
_keeping = None                         # their lock, made by keep_open (the command line needs none)


def keep_open() -> None:
    """From now on, what ``fresh`` opens is kept open for the next search in this process (the MCP
    server): a connection's page cache stays warm, and opening and closing cost nothing more."""
    import threading

    global _kept, _keeping
    if _keeping is None:
        _keeping = threading.Lock()
    with _keeping:
        if _kept is None:
            _kept = []


class _Kept(sqlite3.Connection):
    """A connection lent by ``fresh`` while connections are kept: closing it gives it back."""

    home: tuple[str, int] = ("", 0)     # the file and its inode

    def close(self) -> None:
        oldest = self
        with _keeping:
            if _kept is not None and not self.in_transaction and self not in _kept:
                _kept.append(self)
                oldest = _kept.pop(0) if len(_kept) > KEPT else None
        if oldest is not None:
            sqlite3.Connection.close(oldest)


def _lend(file: Path) -> sqlite3.Connection:
    """A kept connection to ``file``, or a new one; those to a file since replaced are closed."""
    home = (str(file), os.stat(file).st_ino)
    with _keeping:
        stale = [c for c in _kept if c.home[0] == home[0] and c.home != home]
        _kept[:] = [c for c in _kept if c not in stale]
        conn = next((c for c in reversed(_kept) if c.home == home), None)
        if conn is not None:
            _kept.remove(conn)
    for old in stale:
        sqlite3.Connection.close(old)
    if conn is None:
        conn = connect(file, factory=_Kept, check_same_thread=False)
        conn.home = home
    return conn


def scan_due(memory: Memory) -> float | None:
    """Seconds until a search's look at the work tree becomes a scan (0 or less: the next one
    scans); None when there is no index of this schema to look from (the next one builds it)."""
    file = location(memory)
    if not file.exists():
        return None
    conn = _open(file)
    try:
        meta = _meta(conn)
        if meta.get("schema") != SCHEMA:
            return None
        return float(meta.get("scanned") or 0) + SCAN_SECONDS - time.time()
    except (sqlite3.DatabaseError, ValueError, TypeError):
        return None
    finally:
        conn.close()


def refresh(memory: Memory, options: Options | None = None, scan: bool = False) -> Update:
    """Bring the index up to date, incrementally when it can, by rebuilding when it cannot."""
    conn, update = fresh(memory, options, scan)
    conn.close()
    return update


def rebuild(memory: Memory, options: Options | None = None, progress=None) -> Update:
    """Read every file again into a new index; ``progress(done, total)`` is told as it goes."""
    started = time.perf_counter()
    options = options or Options()
    file = location(memory)
    conn = _open_or_replace(file)
    try:
        conn.execute("BEGIN IMMEDIATE")
        folders = _folder_times(memory.root)
        head, dirty = _state(memory.root)
        _script(conn, _DROP)
        _create(conn, options)
        update = Update("rebuild", commit=head)
        _apply(memory, conn, sorted(listed(memory.root), key=_chronological), update, progress=progress)
        _script(conn, _INDEXES)
        conn.execute("INSERT INTO fts(fts) VALUES('rebuild')")
        _set_meta(conn, {"schema": SCHEMA, "commit": head or "", "dirty": sorted(dirty),
                         "built": clock.now().isoformat(timespec="seconds"), "options": options._asdict(),
                         "scanned": time.time(), "folders": folders})
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()
    update.seconds = time.perf_counter() - started
    return update


def after_commit(root: Path) -> None:
    """For the post-commit hook: bring an existing index up to date; never raise, never build one."""
    try:
        memory = Memory(root)
        if location(memory).exists() and not _committed_since(memory):
            refresh(memory)
    except Exception:  # a cache must never fail a commit
        pass


def _committed_since(memory: Memory) -> bool:
    """Read what the commits since the index's own changed (and what it knew was dirty),
    without `git status` over the work tree: that scan costs 100 ms at ten years, and the
    next recall makes it anyway. False when the index's commit is gone or unknown."""
    conn = connect(location(memory))
    try:
        meta, head = _meta(conn), git.head(memory.root)
        if meta.get("schema") != SCHEMA or not meta.get("commit") or not head:
            return False
        changed = _changed(memory.root, meta["commit"], head)
        if changed is None:
            return False
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _meta(conn) != meta:             # another process updated it meanwhile
                conn.execute("ROLLBACK")
                return False
            known = set(meta.get("dirty", []))
            read = _apply(memory, conn, sorted(changed | known), Update("incremental", commit=head), skip_unchanged=True)
            _index_texts(conn, read)
            _set_meta(conn, {"commit": head, "dirty": sorted(known | set(read))})
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return True
    finally:
        conn.close()


def status(memory: Memory) -> dict:
    """What the index holds and whether it is up to date, without changing it."""
    file = location(memory)
    head = git.head(memory.root)
    data = {"path": memory.rel(file) if file.exists() else f"{memory.rel(memory.cache)}/{FILE}",
            "exists": file.exists(), "bytes": file.stat().st_size if file.exists() else 0, "head": head}
    if not file.exists():
        return data
    conn = connect(file)
    try:
        meta = _meta(conn)
        kinds = dict(conn.execute("SELECT kind, count(*) FROM docs GROUP BY kind ORDER BY kind"))
        data.update({
            "documents": sum(kinds.values()), "kinds": kinds,
            "files": conn.execute("SELECT count(*) FROM files").fetchone()[0],
            "commit": meta.get("commit") or None, "built": meta.get("built"),
            "fresh": meta.get("commit") == (head or ""),
            "uncommitted": sorted(p for p in meta.get("dirty", []) if (memory.root / p).exists()),
            "scanned": meta.get("scanned"),
            "options": meta.get("options"),
        })
    except sqlite3.DatabaseError:
        data["corrupt"] = True
    finally:
        conn.close()
    return data


def snapshot(memory: Memory) -> list[tuple]:
    """Every indexed document, then every indexed word's counts per column, in a stable order:
    two indexes of the same files compare equal."""
    conn = connect(location(memory))
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, fts, col)")
        return conn.execute(
            "SELECT d.path, d.block, d.kind, d.tier, d.at, d.ts, d.decays, d.visibility, d.role, d.session, d.line,"
            " t.title, t.body, t.context, t.links FROM docs d JOIN texts t ON t.id = d.id"
            " ORDER BY d.path, d.line, d.block").fetchall() + conn.execute(
            "SELECT term, col, doc, cnt FROM temp.terms ORDER BY term, col").fetchall()
    finally:
        conn.close()


# -- updating ----------------------------------------------------------------------------


def _incremental(memory: Memory, conn: sqlite3.Connection, meta: dict, scan: bool = False) -> Update:
    """What changed since the index's last look, at a cost that grows with the change.

    Always: the commits since the indexed one (``git diff``), the files it knew uncommitted
    or read last time, the newest journal day files (a turn persist could not commit yet),
    every file of the folders a person edits by hand (people/, domains/, reference/: each a
    stat), and every folder's mtime, so a file added, removed or renamed anywhere is found.
    An in-place edit of an older file that nobody commits (a memory retouched in an editor)
    waits for the scan: ``git status`` over the work tree, which costs with the memory's
    size (80 ms at ten years), so it runs at most every ``SCAN_SECONDS``, or when asked.
    """
    if scan or time.time() - float(meta.get("scanned") or 0) > SCAN_SECONDS:
        return _scanned(memory, conn, meta)
    started = time.perf_counter()
    head = git.head(memory.root)
    changed = set() if meta.get("commit") == (head or "") else _changed(memory.root, meta.get("commit", ""), head)
    if changed is None:
        return rebuild(memory, _options(meta))
    looked = _look(memory, conn, meta)
    known = set(meta.get("dirty", []))
    paths = changed | looked.paths | known
    if not changed and not looked.paths and looked.folders == meta.get("folders") and not _stale(memory, conn, known):
        return Update("fresh", commit=head, seconds=time.perf_counter() - started)
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _meta(conn) != meta:                 # another process updated it meanwhile: do as it did
            conn.execute("ROLLBACK")
            return _incremental(memory, conn, _meta(conn), scan)
        update = Update("incremental", commit=head)
        read = _apply(memory, conn, sorted(paths), update, skip_unchanged=True)
        _index_texts(conn, read)
        _set_meta(conn, {"commit": head or "", "dirty": sorted((known | looked.untracked | set(read))),
                         "folders": looked.folders})
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    update.seconds = time.perf_counter() - started
    return update


def _scanned(memory: Memory, conn: sqlite3.Connection, meta: dict) -> Update:
    """The whole work tree compared, as ``git status`` sees it."""
    started = time.perf_counter()
    folders = _folder_times(memory.root)            # before the scan: what changes during it shows next time
    head, dirty = _state(memory.root)
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _meta(conn) != meta:                 # another process updated it meanwhile
            meta = _meta(conn)
            head, dirty = _state(memory.root)
        paths = set(dirty) | set(meta.get("dirty", []))
        if meta.get("commit") != (head or ""):
            changed = _changed(memory.root, meta.get("commit", ""), head)
            if changed is None:
                conn.execute("ROLLBACK")
                return rebuild(memory, _options(meta))
            paths |= changed
        update = Update("incremental", commit=head)
        read = _apply(memory, conn, sorted(paths), update, skip_unchanged=True)
        _index_texts(conn, read)
        # A file read now may change again before the next status; looking at it once more costs a stat.
        _set_meta(conn, {"commit": head or "", "dirty": sorted(set(dirty) | set(read)), "scanned": time.time(),
                         "folders": folders})
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if not read and update.removed == 0:
        update.mode = "fresh"
    update.seconds = time.perf_counter() - started
    return update


class _Looked(Record):
    __slots__ = _fields = ("paths", "untracked", "folders")

    def __init__(self, paths: set[str], untracked: set[str], folders: dict[str, int]):
        self.paths = paths              # files to read again or forget
        self.untracked = untracked      # new files no commit holds yet
        self.folders = folders          # every folder's mtime, as looked at


def _look(memory: Memory, conn: sqlite3.Connection, meta: dict) -> _Looked:
    """The stat-level look: folders whose entries changed, hand-edited notes, the newest days."""
    root, folders = memory.root, dict(meta.get("folders") or {})
    base = f"{root}/"           # joined as strings: a Path per folder and file costs more than its stat
    paths, found = set(), set()
    for folder, mtime in list(folders.items()):
        try:
            now = os.stat(base + folder).st_mtime_ns
        except OSError:
            now = None
        if now == mtime:
            continue
        listed = _listing(root, folder) if now is not None else ({}, [])
        files, subfolders = listed
        known = set(_children(conn, folder))
        paths |= known - set(files)
        found |= set(files) - known
        if now is None:
            folders.pop(folder)
            paths |= set(_under(conn, folder))
            for sub in [f for f in folders if f.startswith(folder + "/")]:
                folders.pop(sub)
            continue
        folders[folder] = now
        for sub in subfolders:
            if sub not in folders:
                found |= _walk(root, sub, folders)
    for relpath, size, mtime in _watched(conn):
        try:
            stat = os.stat(base + relpath)
        except OSError:
            paths.add(relpath)
            continue
        if (stat.st_size, stat.st_mtime_ns) != (size, mtime):
            paths.add(relpath)
    untracked = _not_ignored(root, found)
    return _Looked(paths | untracked, untracked, folders)


def _stale(memory: Memory, conn: sqlite3.Connection, paths: set[str]) -> bool:
    """Whether any of these files differs from what the index read."""
    for relpath in paths:
        known = _known(conn, relpath)
        stat = confine.stat(memory.root, memory.root / relpath)
        if stat is None:
            if known is not None:
                return True
            continue
        if known != (stat.st_size, stat.st_mtime_ns):
            return True
    return False


def _listing(root: Path, folder: str) -> tuple[dict[str, None], list[str]]:
    """A folder's indexed files and its subfolders (relative paths)."""
    files, subfolders = {}, []
    try:
        entries = list(os.scandir(root / folder))
    except OSError:
        return {}, []
    # A name here holds no '/' and starts with no '.': whether recall reads the file is the
    # folder's answer and the name's ending (asked once, not of each of a scan's 34,000 files).
    readable = sources.indexed(f"{folder}/_.md")
    for entry in entries:
        relpath = f"{folder}/{entry.name}"
        if entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            subfolders.append(relpath)
        elif readable and entry.name.endswith(".md"):
            files[relpath] = None
    return files, subfolders


def _walk(root: Path, folder: str, folders: dict[str, int]) -> set[str]:
    """Every indexed file under a folder new to the index, its folders recorded."""
    try:
        folders[folder] = (root / folder).stat().st_mtime_ns
    except OSError:
        return set()
    files, subfolders = _listing(root, folder)
    found = set(files)
    for sub in subfolders:
        found |= _walk(root, sub, folders)
    return found


def _children(conn: sqlite3.Connection, folder: str) -> list[str]:
    return [p for p in _under(conn, folder) if "/" not in p[len(folder) + 1:]]


def _under(conn: sqlite3.Connection, folder: str) -> list[str]:
    return [r[0] for r in conn.execute("SELECT path FROM files WHERE path > ? AND path < ?", (folder + "/", folder + "0"))]


def _watched(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """The files looked at every time: notes edited by hand, and the newest journal files."""
    rows = []
    for folder in HAND_EDITED:
        rows += conn.execute("SELECT path, size, mtime_ns FROM files WHERE path > ? AND path < ?",
                             (folder + "/", folder + "0")).fetchall()
    rows += conn.execute("SELECT path, size, mtime_ns FROM files WHERE path > 'journal/' AND path < 'journal0'"
                         " ORDER BY path DESC LIMIT 3").fetchall()
    return rows


def _not_ignored(root: Path, paths: set[str]) -> set[str]:
    if not paths:
        return set()
    done = git.run(root, "check-ignore", "--no-index", "--stdin", "-z", input="\0".join(sorted(paths)) + "\0", check=False)
    return paths - {p for p in done.stdout.split("\0") if p}


def _folder_times(root: Path) -> dict[str, int]:
    """The mtime of every folder recall reads, walked from the top (at a scan or a rebuild)."""
    out: dict[str, int] = {}
    for top in sources.FOLDERS:
        if (root / top).is_dir():
            _walk(root, top, out)
    return out


def _apply(memory: Memory, conn: sqlite3.Connection, paths: list[str], update: Update,
           skip_unchanged: bool = False, progress=None) -> list[str]:
    """Read each path again from the work tree, or forget it when it is gone; returns the paths read.

    Only ``docs`` is written here: the caller has FTS5 index the new rows.
    """
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
    read, batch = [], _Batch(conn)
    for n, relpath in enumerate(paths, 1):
        if progress and (n % 200 == 0 or n == len(paths)):
            progress(n, len(paths))
        if not sources.indexed(relpath):
            continue
        full = memory.root / relpath
        stat = confine.stat(memory.root, full)      # a link out of the memory is never read
        known = _known(conn, relpath) if skip_unchanged else None
        if stat is not None and known == (stat.st_size, stat.st_mtime_ns):
            continue
        if known is not None:
            _forget(conn, relpath)
        if stat is None:
            update.removed += known is not None
            continue
        data = full.read_bytes()
        read.append(relpath)
        update.files += 1
        update.bytes += len(data)
        batch.files.append((relpath, stat.st_size, stat.st_mtime_ns))
        for doc in sources.documents(relpath, data.decode("utf-8", errors="replace")):
            batch.add(next_id, doc)
            next_id += 1
        update.documents += batch.flush_if_full()
    update.documents += batch.flush()
    return read


def _known(conn: sqlite3.Connection, relpath: str) -> tuple[int, int] | None:
    """The size and mtime a file had when it was read, if it was."""
    return conn.execute("SELECT size, mtime_ns FROM files WHERE path = ?", (relpath,)).fetchone()


def _index_texts(conn: sqlite3.Connection, paths: list[str]) -> None:
    """Have FTS5 index the rows just written for these paths."""
    conn.executemany("INSERT INTO fts(rowid, title, body, context, links)"
                     " SELECT id, title, body, context, links FROM texts WHERE path = ?", [(p,) for p in paths])


class _Batch:
    """Rows waiting to be written, a few thousand at a time (a 10-year rebuild holds no more)."""

    SIZE = 5000

    def __init__(self, conn: sqlite3.Connection):
        self.conn, self.docs, self.files, self.mentions, self.names = conn, [], [], [], []

    def add(self, doc_id: int, doc: sources.Document) -> None:
        self.docs.append(_row(doc_id, doc))
        self.mentions.extend((doc_id, since, until) for since, until in sources.mentions(doc))
        self.names.extend((doc_id, name) for name in sources.names(doc))

    def flush_if_full(self) -> int:
        return self.flush() if len(self.docs) >= self.SIZE else 0

    def flush(self) -> int:
        self.conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self.docs)
        self.conn.executemany("INSERT OR REPLACE INTO files VALUES (?,?,?)", self.files)
        self.conn.executemany("INSERT INTO mentions VALUES (?,?,?)", self.mentions)
        self.conn.executemany("INSERT INTO names VALUES (?,?)", self.names)
        written = len(self.docs)
        self.docs, self.files, self.mentions, self.names = [], [], [], []
        return written


def _row(doc_id: int, doc: sources.Document) -> tuple:
    ts = doc.at.timestamp() if doc.at else None
    at = doc.at.isoformat() if doc.at else None
    return (doc_id, doc.path, doc.block, doc.kind, doc.tier, at, ts, int(doc.decays),
            doc.visibility, doc.role, doc.session, doc.line, doc.title, doc.body, doc.links, doc.source)


def _forget(conn: sqlite3.Connection, relpath: str) -> None:
    """Take a file's documents out; FTS5 needs the very values it indexed, so the view gives them
    while every row of the file (its turns' context included) is still there."""
    conn.execute("INSERT INTO fts(fts, rowid, title, body, context, links)"
                 " SELECT 'delete', id, title, body, context, links FROM texts WHERE path = ?", (relpath,))
    conn.execute("DELETE FROM mentions WHERE doc IN (SELECT id FROM docs WHERE path = ?)", (relpath,))
    conn.execute("DELETE FROM names WHERE doc IN (SELECT id FROM docs WHERE path = ?)", (relpath,))
    conn.execute("DELETE FROM docs WHERE path = ?", (relpath,))
    conn.execute("DELETE FROM files WHERE path = ?", (relpath,))


# -- the database ------------------------------------------------------------------------


def _open_or_replace(file: Path) -> sqlite3.Connection:
    """A connection to ``file``, or to a new file when the old one is not a database."""
    try:
        conn = connect(file)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.DatabaseError:
        pass
    for leftover in (file, file.with_name(FILE + "-wal"), file.with_name(FILE + "-shm")):
        leftover.unlink(missing_ok=True)
    return connect(file)


def _script(conn: sqlite3.Connection, sql: str) -> None:
    """Statements one by one: executescript() would commit the open transaction first."""
    for statement in filter(str.strip, sql.split(";")):
        conn.execute(statement)


def _create(conn: sqlite3.Connection, options: Options) -> None:
    _script(conn, _TABLES)
    conn.execute(f"CREATE VIEW texts AS SELECT d.id, d.path, d.title, d.body,"
                 f" CASE WHEN d.kind = 'turn' THEN {CONTEXTS[options.context]} END AS context, d.links FROM docs d")
    tokenizer = options.tokenizer.replace("'", "''")
    conn.execute(f"CREATE VIRTUAL TABLE fts USING fts5({', '.join(COLUMNS)}, content='texts',"
                 f" content_rowid='id', tokenize='{tokenizer}')")


def _meta(conn: sqlite3.Connection) -> dict:
    return {key: json.loads(value) for key, value in conn.execute("SELECT key, value FROM meta")}


def _set_meta(conn: sqlite3.Connection, values: dict) -> None:
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in values.items()])


def _options(meta: dict) -> Options:
    try:
        return Options(**meta.get("options", {}))
    except TypeError:
        return Options()


def _has_pow(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT pow(2, 1)")
        return True
    except sqlite3.OperationalError:
        return False


# -- git ---------------------------------------------------------------------------------


def _state(root: Path) -> tuple[str | None, set[str]]:
    """HEAD and the indexed paths that differ from it in the work tree (untracked included)."""
    out = git.run(root, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch",
                  "--untracked-files=all", "--", *sources.FOLDERS).stdout
    head, dirty = None, set()
    entries = iter(out.split("\0"))
    for entry in entries:
        if entry.startswith("# branch.oid "):
            oid = entry.split()[-1]
            head = None if oid == "(initial)" else oid
        elif entry.startswith(("1 ", "u ")):
            dirty.add(entry.split(" ", 8 if entry[0] == "1" else 10)[-1])
        elif entry.startswith("2 "):
            dirty.add(entry.split(" ", 9)[-1])
            dirty.add(next(entries, ""))
        elif entry.startswith("? "):
            dirty.add(entry[2:])
    return head, {p for p in dirty if sources.indexed(p)}


def _changed(root: Path, old: str, new: str | None) -> set[str] | None:
    """Paths changed between two commits; None when the old one is gone (history rewritten)."""
    if not old or not new:
        return None if old or new else set()
    done = git.run(root, "diff", "--name-status", "--no-renames", "-z", old, new, "--", *sources.FOLDERS, check=False)
    if done.returncode != 0:
        return None
    parts = [p for p in done.stdout.split("\0") if p]
    return set(parts[1::2])


def _chronological(relpath: str) -> tuple[str, str]:
    """Files by the date their name starts with, so a rebuild numbers documents oldest first."""
    name = relpath.rsplit("/", 1)[-1]
    return (name[:10] if name[:4].isdigit() else "", relpath)


def listed(root: Path) -> list[str]:
    """Every file recall reads: tracked or untracked, never ignored."""
    out = git.run(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *sources.FOLDERS).stdout
    return sorted({p for p in out.split("\0") if p and sources.indexed(p)})
