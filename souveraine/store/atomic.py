"""The one way Souveraine writes a file: temp file, fsync, rename.

A crash or a refusal at any moment leaves either the old file or the new one, never half.
"""

import os
from pathlib import Path

# tempfile would cost every command its imports (shutil, random, bz2, lzma): a few ms of start-up.
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def atomic_write(path: Path, data: str | bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` (text is written UTF-8 with LF line ends)."""
    path = Path(path)
    if isinstance(data, str):
        data = data.replace("\r\n", "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _temporary(path: Path) -> tuple[int, str]:
    """A new file beside ``path``, readable by its owner only, as tempfile.mkstemp makes one.

    Its name, ``.NAME.<pid>-<hex>.tmp``, says which process writes it: one whose process is
    gone was cut short, and ``store.repair`` removes it."""
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, _FLAGS, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def atomic_append(path: Path, text: str) -> None:
    """Append ``text`` by rewriting the whole file atomically (files here are small)."""
    path = Path(path)
    old = path.read_bytes() if path.exists() else b""
    atomic_write(path, old + text.replace("\r\n", "\n").encode("utf-8"))


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
