"""One float32 copy of a model's weights per machine, shared by every worker through the page cache.

A GGUF file stores its tensors quantised; dequantising them takes seconds and, held as each
process's own arrays, costs every worker the whole model in memory. Here the dequantised weights are
written once into a cache file (float32, keyed by the GGUF's SHA-256 and this format's version,
``FORMAT``), written atomically (a temporary file in the same folder, flushed, then renamed), and
every later load memory-maps it read-only: the pages are the kernel's, one copy for all processes
that map the file. The file also holds the model's sizes and its tokenizer (as ``tokenizers``
serialises it), so a load with the cache present does not walk the GGUF's metadata at all.

Layout: ``MAGIC``, a little-endian u64 header length, the header (UTF-8 JSON: format, digest,
config, tokens, tokenizer, and each array's offset and shape), zero padding to ``DATA_ALIGN``, then
the arrays' float32 bytes, each starting at a multiple of ``ALIGN`` from there.

Huge pages: a forward pass reads every weight once, ~0.5 GB. Mapped in 4 KiB pages that is about
130,000 page-table entries to walk, and after an idle moment (a student between two keystrokes)
they are no longer in the CPU's caches: measured on this machine, a keystroke's products took
~9 ms longer after 0.3 s of idleness than back to back. The kernel maps a file's page cache with
2 MiB entries where it holds 2 MiB folios, so the data region starts at a 2 MiB boundary, is written
in whole 2 MiB-aligned pieces (``CHUNK``; the page cache then keeps 2 MiB folios), and its mapping is
marked ``MADV_HUGEPAGE`` (pages read back after eviction come in 2 MiB folios too). Best effort: where
the kernel or file system cannot, the same file works with small pages.

The digest: hashing the 270 MB GGUF on every load would cost a warm load most of its time, so the
digest is kept in a side file next to the caches (``DIGESTS``), keyed by the GGUF's resolved path,
size, modification time and inode change time; a file that changed in any of them is hashed again
(and, its digest changed, gets its own cache built).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import mmap
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

FORMAT = 2  # bump when the layout or the header's meaning changes: older files are then ignored
MAGIC = b"ATTW32\r\n"
ALIGN = 64  # each array's start within the data region
DATA_ALIGN = 2 << 20  # the data region's start in the file: a huge page's size
CHUNK = 16 << 20  # the data region is written this much at a time, each piece at a multiple of CHUNK
DIGESTS = "digests.json"  # the side file of known GGUF digests
DIGESTS_KEPT = 16  # files remembered in it
LAYER_PARTS = tuple(f.name for f in dataclasses.fields(Layer))

__all__ = ["FORMAT", "cache_path", "file_digest", "gguf_digest", "read_cache", "write_cache"]


def gguf_digest(path: Path) -> str:
    """The SHA-256 of the file, hex (read in 4 MiB pieces)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 << 20):
            h.update(chunk)
    return h.hexdigest()


def file_digest(folder: Path, path: Path) -> str:
    """``gguf_digest(path)``, from ``folder``'s side file of digests when the file is as it was when
    it was hashed (its resolved path, size, mtime and ctime in nanoseconds); otherwise hashed, and
    remembered there (written atomically; a folder that cannot be written only costs the hashing)."""
    path = Path(path).resolve()
    st = path.stat()
    stamp = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns}
    memo = Path(folder) / DIGESTS
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
        files = known["files"] if isinstance(known, dict) and isinstance(known.get("files"), dict) else {}
    except (OSError, ValueError):
        files = {}
    entry = files.get(str(path))
    if isinstance(entry, dict) and {k: entry.get(k) for k in stamp} == stamp and isinstance(entry.get("digest"), str):
        return entry["digest"]
    digest = gguf_digest(path)
    files.pop(str(path), None)
    files[str(path)] = {**stamp, "digest": digest}  # the newest last; the oldest forgotten first
    try:
        _write_atomically(memo, json.dumps({"files": dict(list(files.items())[-DIGESTS_KEPT:])}).encode())
    except OSError as exc:
        log.info("digest of %s not remembered in %s (%s)", path, folder, exc)
    return digest


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def _aligned(n: int, to: int = ALIGN) -> int:
    return -(-n // to) * to


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
    start = _aligned(len(MAGIC) + 8 + len(header), DATA_ALIGN)
    final = cache_path(folder, digest)
    fd, tmp = tempfile.mkstemp(prefix=final.name + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(header)) + header)
            f.write(b"\0" * (start - f.tell()))
            for piece in _pieces(arrays, [e["offset"] for e in entries.values()], offset):
                f.write(piece)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, final)  # atomic: a reader sees the old file, no file, or the whole new one
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return final


def _pieces(arrays: list[np.ndarray], offsets: list[int], total: int) -> Iterator[memoryview]:
    """The data region's ``total`` bytes (array i's at ``offsets[i]``, zeros between) as CHUNK-sized
    pieces in order, each written at once: every 2 MiB of the page cache is then one write's."""
    stage = np.zeros(CHUNK, dtype=np.uint8)
    first = 0  # the first array not yet wholly written
    for begin in range(0, total, CHUNK):
        end = min(begin + CHUNK, total)
        stage[:] = 0
        i = first
        while i < len(arrays) and offsets[i] < end:
            a = arrays[i].reshape(-1).view(np.uint8)
            lo, hi = max(offsets[i], begin), min(offsets[i] + a.size, end)
            stage[lo - begin: hi - begin] = a[lo - offsets[i]: hi - offsets[i]]
            if offsets[i] + a.size <= end:
                first = i + 1
            i += 1
        yield memoryview(stage[: end - begin])


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
            if header.get("format") != FORMAT or header.get("digest") != digest:
                return _stale(path, "of another format or model file")
            start = _aligned(len(MAGIC) + 8 + length, DATA_ALIGN)
            if os.fstat(f.fileno()).st_size != start + header["data_bytes"]:
                return _stale(path, "cut short")
            mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
        return _stale(path, f"unreadable ({exc})")
    _huge_pages(mapping)
    whole = np.frombuffer(mapping, dtype=np.uint8, count=header["data_bytes"], offset=start)  # read-only

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


def _huge_pages(mapping: mmap.mmap) -> None:
    """Ask the kernel to back the mapping with 2 MiB pages where it can (Linux; a hint only)."""
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is not None:
        with contextlib.suppress(OSError):
            mapping.madvise(advice)


def _stale(path: Path, why: str) -> None:
    log.warning("weights cache %s is %s: it will be rebuilt", path, why)
    return None
