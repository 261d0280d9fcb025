"""Records: plain classes that compare, print and copy by their fields, as a dataclass would.

`dataclasses` imports `inspect` and compiles every class's methods from source text when its
module is imported: about a third of the instructions of a recall from the command line.
A record names its fields in ``_fields`` and writes its own ``__init__``; this base gives it
the rest: ``==`` field by field between records of one class, a repr, ``replace`` (as
``dataclasses.replace``) and ``_asdict`` (as ``dataclasses.asdict`` for flat fields).
A ``Frozen`` record refuses new values once built and hashes by its fields.
"""


class Record:
    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None     # a mutable record, like a dataclass with eq

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({shown})"

    def replace(self, **changes):
        """A new record with ``changes``, the other fields as they are."""
        return self.__class__(**{**{name: getattr(self, name) for name in self._fields}, **changes})

    def _asdict(self) -> dict:
        return {name: getattr(self, name) for name in self._fields}

    def __reduce__(self):       # copy, deepcopy and pickle: rebuilt through __init__, fields in order
        return self.__class__, self._values()


class Frozen(Record):
    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._values())


def frozen_init(record: Frozen, **values) -> None:
    """Set a frozen record's fields, once, from its ``__init__``."""
    for name, value in values.items():
        object.__setattr__(record, name, value)
