"""The one token counter, offline.

An estimate from the model's characters-per-token (peers use ceil(len/4) with headroom),
or exact counts from a tokenizer.json when one is configured and the `tokenizers`
package is installed.
"""

import math
from functools import lru_cache


def count(text: str, chars_per_token: float = 4.0, tokenizer: str = "") -> int:
    if not text:
        return 0
    if tokenizer:
        encoder = _tokenizer(tokenizer)
        if encoder is not None:
            return len(encoder.encode(text).ids)
    return math.ceil(len(text) / chars_per_token)


def for_model(text: str, model: dict) -> int:
    """Count with a [models.<name>] table from the config."""
    return count(text, model.get("chars_per_token", 4.0), model.get("tokenizer", ""))


@lru_cache(maxsize=4)
def _tokenizer(path: str):
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None
    return Tokenizer.from_file(path)


def from_size(nbytes: int, model: dict) -> int:
    """A cheap estimate from a file's size, for totals over many files (no reading)."""
    return math.ceil(nbytes / model.get("chars_per_token", 4.0))
