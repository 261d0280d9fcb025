"""Regular expressions compiled on first use, so importing a module of patterns costs nothing;
and their compiled programs kept across processes, so a command that starts, reads a turn and
exits does not compile the same few hundred patterns every time.

The subconscious holds a few hundred patterns; a turn reads a handful of them. ``lazy``
takes what ``re.compile`` takes and answers the same methods (``search``, ``match``,
``sub``, ``finditer``…), compiling at the first call. ``compile`` is ``re.compile`` for a
pattern written in the source: ``re`` parses and compiles in Python, about 20 ms of every
persist's CPU, so the program it makes (what ``_sre.compile`` takes) is kept in
``$XDG_CACHE_HOME/souveraine/`` (``~/.cache``), one file per Python and per version of its
regular-expression engine, and a pattern found there is only handed to ``_sre`` (which checks
the program, in C). A program is kept only when the pattern it makes is equal to
``re.compile``'s (same flags, same code); an unreadable, foreign or damaged cache is compiled
again as if absent. A pattern built at run time from a turn's words goes to ``re`` directly:
the cache holds only what the source holds.
"""

import os
import re
import sys

_MAX = 4096      # programs kept; past it, those this process used
_cache: dict | None = None
_used: set = set()
_added = False


class lazy:
    __slots__ = ("source", "flags", "_compiled")

    def __init__(self, source: str, flags: int = 0):
        self.source, self.flags, self._compiled = source, flags, None

    @property
    def compiled(self) -> re.Pattern:
        if self._compiled is None:
            self._compiled = compile(self.source, self.flags)
        return self._compiled

    def __getattr__(self, name):
        return getattr(self.compiled, name)


def compile(source: str | bytes, flags: int = 0) -> re.Pattern:
    """``re.compile(source, flags)``, its program read from the cache when it is there."""
    global _added
    flags = int(flags)
    if flags & re.DEBUG:
        return re.compile(source, flags)
    key = (source, flags)
    programs = _programs()
    found = programs.get(key)
    if found is not None:
        try:
            compiled = _sre_compile(source, found)
        except Exception:     # not a program this engine takes: compile it again
            compiled = None
        if compiled is not None:
            _used.add(key)
            return compiled
    compiled = re.compile(source, flags)
    program = _program(source, flags)
    if program is not None and _sre_compile(source, program) == compiled:
        programs[key] = program
        _used.add(key)
        if not _added:
            import atexit

            atexit.register(_save)
        _added = True
    return compiled


def _sre_compile(source, program) -> re.Pattern:
    import _sre
    from array import array

    final, code, groups, groupindex, indexgroup = program
    return _sre.compile(source, final, array("I", code).tolist(), groups, dict(groupindex), tuple(indexgroup))


def _program(source, flags: int) -> tuple | None:
    """What ``re._compiler.compile`` hands ``_sre.compile``, the code as bytes; None where this
    Python's ``re`` is not made as expected (the pattern is then never cached)."""
    try:
        import _sre
        from array import array
        from re import _compiler, _parser

        if array("I").itemsize != _sre.CODESIZE:
            return None
        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        return (flags | parsed.state.flags, array("I", code).tobytes(), parsed.state.groups - 1, groupindex,
                tuple(indexgroup))
    except Exception:
        return None


def _where() -> str | None:
    import _sre

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    tag = sys.implementation.cache_tag or "python"
    return os.path.join(base, "souveraine", f"patterns-{tag}-{sys.hexversion:x}-{_sre.MAGIC}.marshal")


def _programs() -> dict:
    global _cache
    if _cache is None:
        _cache = {}
        import marshal

        try:
            path = _where()
            if path:
                with open(path, "rb") as handle:
                    found = marshal.loads(handle.read())
                if isinstance(found, dict):
                    _cache = found
        except (OSError, ValueError, EOFError, TypeError):
            pass
    return _cache


def _save() -> None:
    """The programs, written whole at exit (a temporary file renamed) when this process added
    one, with those another process wrote since this one read them."""
    import marshal

    try:
        path = _where()
        if not path or _cache is None:
            return
        try:
            with open(path, "rb") as handle:
                theirs = marshal.loads(handle.read())
        except (OSError, ValueError, EOFError, TypeError):
            theirs = None
        kept = {**theirs, **_cache} if isinstance(theirs, dict) else _cache
        if len(kept) > _MAX:
            kept = {k: v for k, v in _cache.items() if k in _used}
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "wb") as handle:
            marshal.dump(kept, handle)
        os.replace(temporary, path)
    except (OSError, ValueError):
        pass
