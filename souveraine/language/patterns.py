"""Regular expressions compiled on first use, so importing a module of patterns costs nothing.

The subconscious holds a few hundred patterns; a turn reads a handful of them. ``lazy``
takes what ``re.compile`` takes and answers the same methods (``search``, ``match``,
``sub``, ``finditer``…), compiling at the first call.
"""

import re


class lazy:
    __slots__ = ("source", "flags", "_compiled")

    def __init__(self, source: str, flags: int = 0):
        self.source, self.flags, self._compiled = source, flags, None

    @property
    def compiled(self) -> re.Pattern:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def __getattr__(self, name):
        return getattr(self.compiled, name)
