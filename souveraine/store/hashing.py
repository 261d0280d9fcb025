"""SHA-1 and SHA-256 without loading OpenSSL.

`hashlib` loads OpenSSL's library when imported: about 9 M instructions, a tenth of the
modules a persist imports, for the few short hashes it takes (a journal block's id, a ledger
entry's, an inbox item's, the trees of a commit). CPython's own implementations give the
same digests; where this Python was built without them, `hashlib` serves.
"""


def sha1(data: bytes = b""):
    try:
        from _sha1 import sha1 as made
    except ImportError:
        from hashlib import sha1 as made
    return made(data)


def sha256(data: bytes = b""):
    try:
        from _sha256 import sha256 as made      # Python 3.11
    except ImportError:
        try:
            from _sha2 import sha256 as made    # 3.12 and later
        except ImportError:
            from hashlib import sha256 as made
    return made(data)
