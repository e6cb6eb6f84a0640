"""One float32 copy of a model's weights per machine, shared by every worker through the page cache.

A GGUF file stores its tensors quantised; dequantising them takes seconds and, held as each
process's own arrays, costs every worker the whole model in memory. Here the dequantised weights are
written once into a cache file (float32, keyed by the GGUF's SHA-256 and this format's version,
``FORMAT``), written atomically (a temporary file in the same folder, flushed, then renamed), and
every later load memory-maps it read-only: the pages are the kernel's, one copy for all processes
that map the file. The file also holds the model's sizes and its tokenizer (as ``tokenizers``
serialises it), so a load with the cache present does not walk the GGUF's metadata at all.

Layout: ``MAGIC``, a little-endian u64 header length, the header (UTF-8 JSON: format, digest,
config, tokens, tokenizer, and each array's offset and shape), zero padding to ``ALIGN``, then the
arrays' float32 bytes, each starting at a multiple of ``ALIGN``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from attention_talk.model.forward import Layer, Weights
from attention_talk.model.gguf_file import Config
from attention_talk.model.tokenizer import Tokenizer

log = logging.getLogger("attention_talk.model")

FORMAT = 1  # bump when the layout or the header's meaning changes: older files are then ignored
MAGIC = b"ATTW32\r\n"
ALIGN = 64
LAYER_PARTS = tuple(f.name for f in dataclasses.fields(Layer))

__all__ = ["FORMAT", "cache_path", "gguf_digest", "read_cache", "write_cache"]


def gguf_digest(path: Path) -> str:
    """The SHA-256 of the file, hex (read in 4 MiB pieces)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 << 20):
            h.update(chunk)
    return h.hexdigest()


def cache_path(folder: Path, digest: str) -> Path:
    """Where the cache of the GGUF with this digest lives in ``folder``."""
    return Path(folder) / f"weights-{digest[:32]}-f32-v{FORMAT}.bin"


def _named_arrays(weights: Weights) -> Iterator[tuple[str, np.ndarray]]:
    yield "embed", weights.embed
    yield "out_norm", weights.out_norm
    if weights.output is not None:
        yield "output", weights.output
    for i, lw in enumerate(weights.layers):
        for part in LAYER_PARTS:
            yield f"blk.{i}.{part}", getattr(lw, part)


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def write_cache(folder: Path, digest: str, config: Config, tokenizer: Tokenizer, weights: Weights) -> Path:
    """Write the cache file for these weights (made float32) atomically; its path. OSError when the
    folder cannot be made or written (the caller goes on with the weights it has)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    arrays, entries, offset = [], {}, 0
    for name, a in _named_arrays(weights):
        a32 = np.ascontiguousarray(a, dtype=np.float32)
        entries[name] = {"offset": offset, "shape": list(a32.shape)}
        arrays.append(a32)
        offset = _aligned(offset + a32.nbytes)
    header = json.dumps({
        "format": FORMAT, "digest": digest, "config": dataclasses.asdict(config),
        "tokens": list(tokenizer.tokens), "tokenizer": tokenizer.backend.to_str(), "arrays": entries,
        "data_bytes": offset}, ensure_ascii=False).encode()
    start = _aligned(len(MAGIC) + 8 + len(header))
    final = cache_path(folder, digest)
    fd, tmp = tempfile.mkstemp(prefix=final.name + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(header)) + header)
            f.write(b"\0" * (start - f.tell()))
            for name, a32 in zip(entries, arrays, strict=True):
                f.seek(start + entries[name]["offset"])
                f.write(a32.tobytes())
            f.truncate(start + offset)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, final)  # atomic: a reader sees the old file, no file, or the whole new one
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return final


def read_cache(folder: Path, digest: str) -> tuple[Config, Tokenizer, Weights] | None:
    """The model's sizes, tokenizer and weights (float32 views of one read-only memory map) from the
    cache of the GGUF with ``digest``; None when there is none, or it is of another format or file, or
    cut short (then it is rebuilt)."""
    path = cache_path(folder, digest)
    try:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return _stale(path, "not a weights cache")
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(length).decode())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, struct.error) as exc:
        return _stale(path, f"unreadable ({exc})")
    if header.get("format") != FORMAT or header.get("digest") != digest:
        return _stale(path, "of another format or model file")
    start = _aligned(len(MAGIC) + 8 + length)
    if path.stat().st_size != start + header["data_bytes"]:
        return _stale(path, "cut short")
    mapped = np.memmap(path, dtype=np.uint8, mode="r", offset=start, shape=(header["data_bytes"],))
    whole = np.asarray(mapped)  # a plain read-only view of the mapping (it keeps the mapping alive)

    def array(name: str) -> np.ndarray:
        e = header["arrays"][name]
        count = int(np.prod(e["shape"])) if e["shape"] else 1
        return whole[e["offset"]: e["offset"] + 4 * count].view(np.float32).reshape(e["shape"])

    config = Config(**header["config"])
    layers = [Layer(*(array(f"blk.{i}.{part}") for part in LAYER_PARTS)) for i in range(config.layers)]
    weights = Weights(embed=array("embed"), layers=layers, out_norm=array("out_norm"),
                      output=array("output") if "output" in header["arrays"] else None)
    from tokenizers import Tokenizer as Backend

    tokenizer = Tokenizer(tokens=tuple(header["tokens"]), backend=Backend.from_str(header["tokenizer"]))
    return config, tokenizer, weights


def _stale(path: Path, why: str) -> None:
    log.warning("weights cache %s is %s: it will be rebuilt", path, why)
    return None
