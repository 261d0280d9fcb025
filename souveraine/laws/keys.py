"""Private key material, which never enters a memory (it lives under ~/.config/souveraine/keys/).

Found: PEM blocks of any `PRIVATE KEY` kind, OpenSSH private keys (framed or not), and
an ed25519 seed or secret (32 or 64 bytes, in hex — `0x` or not —, base64 or base58
multibase) given under a key-ish name (`seed`, `secret`, `private key`, `signing_key`,
`ed25519_sk`, …) in JSON, YAML, TOML or prose, or alone in a file named like a key; and,
in any file, exactly 32 or 64 raw random bytes. Binary files are searched too: a PEM block
after a NUL byte, and text in UTF-16. A bare 64-hex-digit value is not enough: frontmatter
carries sha256 hashes (`content_sha256: …`) that look the same.
"""

import re

from souveraine.language import patterns

_PEM = patterns.compile(r"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY[A-Z ]*)-----")
_OPENSSH = patterns.compile(r"b3BlbnNzaC1rZXktdjE")  # base64 of "openssh-key-v1", the format's magic
_NAMED = patterns.compile(
    r"""(?<![\w-])["']?(?P<name>(?:[\w-]*[_-])?(?:seed|secret|secret[ _-]?key|private[ _-]?key|privkey|signing[ _-]?key|sk)"""
    r"""(?:[_-]?(?:hex|b64|base64|base58|multibase|bytes))?)["']?[ \t]*[:=][ \t]*["']?(?P<value>[A-Za-z0-9+/_=-]{40,})""",
    re.IGNORECASE,
)
# Every finding needs one of these words, in any case (or `sk`, _triggered): most text is
# skipped at once. Substring tests on case-folded text: a case-insensitive regex of the
# alternatives read 2 MB/s, the largest cost of verifying a history.
_TRIGGERS = ("seed", "secret", "priv", "signing", "b3blbnnzac1rzxktdje")
# The triggers as UTF-16 spells them: a binary file is decoded only when one is there.
_WIDE = tuple(w.encode(enc) for w in ("PRIVATE", "seed", "secret", "b3BlbnNzaC1rZXktdjE")
              for enc in ("utf-16-le", "utf-16-be"))
_MARGIN = 512  # bytes of the old text read again: longer than any name and value
_REACH = 256   # longer than any value a finding keeps (200 characters) or any key's encoding
_KEY_FILE = patterns.compile(r"(?:^|/)(?:id_ed25519|[^/]*\.(?:key|seed|secret|sk|pem|p8))$", re.IGNORECASE)
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_ED25519_PRIV = b"\x80\x26"  # multicodec 0x1300 (ed25519-priv) as a varint


class Finding:
    __slots__ = ("what", "line", "value")

    def __init__(self, what: str, line: int, value: str):
        self.what, self.line, self.value = what, line, value

    def __repr__(self) -> str:
        return f"Finding({self.what!r}, line {self.line})"


def find(data: bytes, path: str = "") -> list[Finding]:
    """Every piece of private key material in ``data`` (a file's bytes)."""
    if len(data) in (32, 64) and not _printable(data) and not _utf8_text(data):
        if _KEY_FILE.search(path):
            return [Finding("a raw ed25519 key in a key file", 1, data.hex())]
        if len(set(data)) >= len(data) * 5 // 8:  # random bytes, not a header padded with zeros
            size = "an ed25519 seed" if len(data) == 32 else "an ed25519 secret key"
            return [Finding(f"{len(data)} raw bytes, the size of {size}", 1, data.hex())]
    if b"\0" in data[:8000]:
        return _binary(data, path)
    if not _maybe(data) and not _KEY_FILE.search(path):
        return []
    return _text(data.decode("utf-8", errors="replace"), path)


def _binary(data: bytes, path: str) -> list[Finding]:
    """Key text inside a binary file: after a NUL byte, or in UTF-16."""
    found = []
    if b"PRIVATE KEY" in data or b"b3BlbnNzaC1rZXktdjE" in data:
        found += _text(data.decode("latin-1"), path)
    for encoding in ("utf-16-le", "utf-16-be"):
        if any(w in data for w in _WIDE[encoding.endswith("be")::2]):
            start = 2 if data[:2] in (b"\xff\xfe", b"\xfe\xff") else 0
            found += _text(data[start:].decode(encoding, errors="replace"), path)
    return found


def _text(text: str, path: str) -> list[Finding]:
    if not _triggered(text):
        return _bare(text, path)
    found = []
    for match in _PEM.finditer(text):
        found.append(Finding(f"a PEM {match[1]} block", _line(text, match.start()), _pem_body(text, match.end())))
    if not any("OPENSSH" in f.what for f in found):
        for match in _OPENSSH.finditer(text):
            found.append(Finding("an OpenSSH private key", _line(text, match.start()), text[match.start():match.start() + 200]))
    for match in _NAMED.finditer(text):
        if _key_bytes(match["value"]):
            found.append(Finding(f"an ed25519 key under '{match['name']}'", _line(text, match.start()), match["value"]))
    return found or _bare(text, path)


def _maybe(data: bytes) -> bool:
    """Whether UTF-8 text may hold a trigger word, decided on its bytes (decoding and case-folding
    a journal day cost ten times more): ASCII lower-casing is case folding, except for the
    few characters whose folding gives ASCII letters, whose presence sends the text to ``_triggered``."""
    if not data.isascii() and any(last in data for last in _FOLDS_LAST) and any(c in data for c in _FOLDS_INTO_TRIGGERS):
        return True
    low = data.lower()
    return any(word in low for word in _BYTE_TRIGGERS) or _sk(low)


# The characters outside ASCII whose case folding can make part of a trigger word: ß and ẞ (ss),
# ſ (s), ẗ (t and a combining mark), K (the Kelvin sign, k); as UTF-8 (ẗ and ẞ share a prefix).
# The other foldings to ASCII letters (İ, ŉ, ǰ, ẖ, the ﬀ–ﬆ ligatures…) fit no trigger (tests/laws/test_keys.py).
_FOLDS_INTO_TRIGGERS = (b"\xc3\x9f", b"\xc5\xbf", b"\xe1\xba", b"\xe2\x84\xaa")
_FOLDS_LAST = (b"\x9f", b"\xbf", b"\xba", b"\xaa")   # each one's byte rarest in text: a memchr rules most texts out
_BYTE_TRIGGERS = tuple(word.encode() for word in _TRIGGERS)


def _triggered(text: str) -> bool:
    low = text.casefold()
    return any(word in low for word in _TRIGGERS) or _sk(low)


def _sk(low: str | bytes) -> bool:
    """`sk` after `_` or `-` (`ed25519_sk`) or standing alone (`sk: …`), not inside a word (`ask`)."""
    if isinstance(low, bytes):
        return _SK.search(low) is not None
    sk, marks = ("sk", ("_", "-")) if isinstance(low, str) else (b"sk", (b"_", b"-"))
    at = low.find(sk)
    while at >= 0:
        before, after = low[at - 1:at], low[at + 2:at + 3]
        if before in marks or not (_alnum(before) or _alnum(after)):
            return True
        at = low.find(sk, at + 2)
    return False


# The same on bytes, in C: `sk` preceded by `_` or `-`, or with no ASCII letter or digit on either side.
_SK = patterns.compile(rb"sk(?:(?<=[_-]sk)|(?<![a-z0-9]sk)(?![a-z0-9]))")


def _alnum(char: str | bytes) -> bool:
    return char.isascii() and char.isalnum()


def _bare(text: str, path: str) -> list[Finding]:
    if _KEY_FILE.search(path) and _key_bytes(text.strip()):
        return [Finding("a bare ed25519 key in a key file", 1, text.strip())]
    return []


def new(data: bytes, before, path: str = "", grown: int | None = None, like: bytes | None = None) -> list[Finding]:
    """Findings in ``data`` that none of the ``before`` versions already held (each is reported once).

    When ``data`` only grows an old version (every journal append) — ``grown``, that
    version's length, when the caller knows it; else found among ``before`` — only the
    growth is read, with a margin so a key cut across the boundary is still seen whole.
    ``like``, the one version before when it is at hand (a replay read it), narrows a
    rewrite the same way: only the lines that differ from it, with the margin (``changed``).
    ``before`` (any iterable of bytes) is read only when something is found outside a growth.
    """
    if grown is None and like is not None and (window := changed(like, data, path)) is not None:
        start, end = window
        found = find(data[start:end + _REACH], path)    # a value opened in the window is read whole
        if not found:
            return found
        lines, inside = data.count(b"\n", 0, start), data.count(b"\n", start, end) + (end >= len(data))
        known = {f.value for f in find(like, path)}
        return [Finding(f.what, f.line + lines, f.value) for f in found if f.line <= inside and f.value not in known]
    if grown is None:
        before = list(before)
        grown = next((len(old) for old in before if 0 < len(old) <= len(data) and data.startswith(old)), None)
    if grown is not None:
        start = max(0, grown - _MARGIN)
        found = find(data[start:], path)
        if found:
            lines = data.count(b"\n", 0, start)
            found = [Finding(f.what, f.line + lines, f.value) for f in found]
        before = [data[:grown]]          # the old version itself: a key it held anywhere is not new
    else:
        found = find(data, path)
    if not found:
        return found
    known = {f.value for old in before for f in find(old, path)}
    return [f for f in found if f.value not in known]


def changed(old: bytes, data: bytes, path: str = "") -> tuple[int, int] | None:
    """The part of ``data`` a search must read to find what ``old`` did not hold: the bytes that
    differ, widened by ``_MARGIN`` and to whole lines. A finding lies within a few hundred bytes
    (a name and its value, a PEM or OpenSSH opening and what follows), so one that does not
    touch the difference is in ``old`` too. None where that does not hold: binary text, a file
    named like a key (read whole), or an OpenSSH block whose opening elsewhere decides."""
    if _KEY_FILE.search(path) or len(data) <= 64 or b"\0" in data or b"\0" in old or b"OPENSSH" in old or b"OPENSSH" in data:
        return None
    head = common_prefix(old, data)
    tail = common_prefix(old[head:][::-1], data[head:][::-1])
    start = data.rfind(b"\n", 0, max(0, head - _MARGIN)) + 1
    end = data.find(b"\n", min(len(data), len(data) - tail + _MARGIN))
    return start, len(data) if end < 0 else end + 1


def common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix, by halving (memcmp does the comparing)."""
    low, high = 0, min(len(a), len(b))
    if a[:high] == b[:high]:
        return high
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _key_bytes(value: str) -> bool:
    """Whether ``value`` encodes 32 or 64 bytes: an ed25519 seed, or seed and public key."""
    value = value.strip().strip("\"'")
    if value[:2] in ("0x", "0X"):
        value = value[2:]
    if re.fullmatch(r"[0-9a-fA-F]{64}|[0-9a-fA-F]{128}", value):
        return True
    if value.startswith("z") and all(c in _BASE58 for c in value[1:]):
        raw = _base58(value[1:])
        return len(raw) in (32, 64) or (raw[:2] == _ED25519_PRIV and len(raw) in (34, 66))
    if len(value.rstrip("=")) in (43, 86):
        import base64
        import binascii

        try:
            raw = base64.b64decode(value.replace("-", "+").replace("_", "/") + "==", validate=False)
        except (binascii.Error, ValueError):
            return False
        return len(raw) in (32, 64)
    return False


def _base58(text: str) -> bytes:
    number = 0
    for char in text:
        number = number * 58 + _BASE58.index(char)
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * (len(text) - len(text.lstrip("1"))) + raw


def _utf8_text(data: bytes) -> bool:
    try:
        return data.decode("utf-8").isprintable()
    except UnicodeDecodeError:
        return False


def _printable(data: bytes) -> bool:
    return all(32 <= b < 127 or b in (9, 10, 13) for b in data)


def _pem_body(text: str, start: int) -> str:
    return text[start:start + 120]


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
