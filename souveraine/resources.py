"""Where the tool's own templates are: memory/, hooks/ and skills/.

Read in place from a checkout (or an editable install); from souveraine/_data/ when
installed from a wheel (setup.py copies them there at build time).
"""

from pathlib import Path


def package_dir() -> Path:
    return Path(__file__).resolve().parent


def path(name: str) -> Path:
    """The template folder ``name`` (memory, hooks or skills)."""
    bundled = package_dir() / "_data" / name
    if bundled.is_dir():
        return bundled
    return package_dir().parent / name


def template_text(relpath: str) -> str | None:
    """The memory template's text for ``relpath``, or None when the template has no such file."""
    try:
        return (path("memory") / relpath).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
