"""What a person or a program hands in: text that is valid Unicode, reads that are bounded,
JSON too deep refused rather than crashed on. Each refusal is a UsageError that names what is wrong.

Every read of a user-given file or of stdin goes through here: ``/dev/zero`` or a
runaway pipe is refused after ``MAX_BYTES``, never read until the kernel steps in.
"""

import json
import sys

from souveraine.errors import UsageError

MAX_BYTES = 16 * 1024 * 1024     # far above any exchange, note or attestation a person writes


def text(value: str, what: str) -> str:
    """``value`` when it can be stored as UTF-8; a lone surrogate (``\\ud800``, or bytes
    Python could not decode in an argument) is refused."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"{what} holds {_shown(value[exc.start])} at character {exc.start}, which is not "
                         "valid Unicode; give UTF-8 text") from None
    return value


def decode(data: bytes, what: str) -> str:
    """``data`` as UTF-8, or a refusal naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                         "give UTF-8 text") from None


def stdin(what: str = "stdin", limit: int = MAX_BYTES) -> str:
    """All of stdin as text, at most ``limit`` bytes."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:      # a text stream put in place by a test runner
        data = sys.stdin.read(limit + 1)
        if len(data) > limit:
            raise UsageError(f"{what} is larger than {limit} bytes; give less")
        return text(data, what)
    return decode(_bounded(stream, what, limit), what)


def read(path: str, what: str, limit: int = MAX_BYTES) -> str:
    """The text of the file at ``path`` (a person named it), at most ``limit`` bytes."""
    try:
        with open(path, "rb") as handle:
            data = _bounded(handle, f"{what} {path}", limit)
    except IsADirectoryError:
        raise UsageError(f"{what} {path} is a folder; give a file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    return decode(data, f"{what} {path}")


def read_or_stdin(source: str, what: str, limit: int = MAX_BYTES) -> str:
    """``-`` reads stdin, anything else names a file."""
    return stdin(what, limit) if source == "-" else read(source, what, limit)


def json_value(source: str, what: str):
    """``source`` parsed as JSON; nesting deeper than Python's recursion limit is refused, not crashed on."""
    try:
        return json.loads(source)
    except RecursionError:
        raise UsageError(f"{what} is JSON nested too deep; give a flat object") from None


def _bounded(stream, what: str, limit: int) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise UsageError(f"{what} is larger than {limit} bytes; give less")
    return data


def _shown(char: str) -> str:
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else repr(char)
