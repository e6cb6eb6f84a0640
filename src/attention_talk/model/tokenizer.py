"""The model's tokenizer, built from the vocabulary and merges stored in its GGUF file.

GGUF files of byte-level BPE models (``tokenizer.ggml.model = "gpt2"``) carry every token string
and every merge; PyPI ``tokenizers`` runs the BPE (no hand-written merging here). The split of the
text before BPE (the "pre-tokenizer") is named by ``tokenizer.ggml.pre``; the regular expressions
are llama.cpp's (``llama-vocab.cpp``) for the names listed in ``PRE_TOKENIZERS``.

Byte-level BPE (Radford et al. 2019, GPT-2) first maps every byte to a printable character — a
space becomes ``Ġ``, a newline ``Ċ`` — so a token string is not the text it stands for.
:meth:`Tokenizer.display` maps it back: the bytes of the token, decoded as UTF-8, with any byte
that is only part of a character (an emoji cut in two) written ``<0xF0>``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache

from attention_talk.model.gguf_file import ModelFileError

GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3_SPLIT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
                r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
# name in tokenizer.ggml.pre → (split every digit on its own, the split regex)
PRE_TOKENIZERS = {
    "smollm": (True, GPT2_SPLIT),  # SmolLM, StarCoder: single digits, then GPT-2's split
    "starcoder": (True, GPT2_SPLIT),
    "gpt-2": (False, GPT2_SPLIT),
    "gpt2": (False, GPT2_SPLIT),
    "default": (False, GPT2_SPLIT),
    "llama-bpe": (False, LLAMA3_SPLIT),  # Llama 3
    "llama3": (False, LLAMA3_SPLIT),
}
ALLOWED_CONTROLS = {"\n", "\t", "\r"}


class TokenizerError(ValueError):
    """Text the model cannot take; the message names the field ('text: …') and the reason."""


@cache
def byte_decoder() -> dict[str, int]:
    """GPT-2's printable character → byte table (the inverse of ``bytes_to_unicode``)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


def piece_bytes(piece: str) -> bytes:
    """The bytes a byte-level token string stands for ('Ġold' → b' old')."""
    table = byte_decoder()
    return bytes(table[c] for c in piece if c in table)


def readable(data: bytes) -> str:
    """UTF-8 text of ``data``; bytes that are not a whole character shown as ``<0xF0>``."""
    out, i = [], 0
    while i < len(data):
        for width in (1, 2, 3, 4):
            try:
                out.append(data[i:i + width].decode("utf-8"))
            except UnicodeDecodeError:
                continue
            i += width
            break
        else:
            out.append(f"<0x{data[i]:02X}>")
            i += 1
    return "".join(out)


def check_text(text: str) -> None:
    """TokenizerError for empty text or control characters other than newline, tab, return."""
    if not isinstance(text, str):
        raise TokenizerError(f"text must be a string, got {type(text).__name__}")
    if not text:
        raise TokenizerError("text: must not be empty")
    for i, ch in enumerate(text):
        if ch not in ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cs"):
            raise TokenizerError(f"text: control character U+{ord(ch):04X} at position {i} is not allowed "
                                 "(newline, tab and return are)")


@dataclass(frozen=True)
class Tokenizer:
    """Byte-level BPE over the GGUF vocabulary; ``encode`` checks the text, ``display`` reads a token."""

    tokens: tuple[str, ...]  # id → token string (byte-level)
    backend: object  # tokenizers.Tokenizer

    def encode(self, text: str) -> list[int]:
        check_text(text)
        return list(self.backend.encode(text, add_special_tokens=False).ids)

    def pieces(self, ids: list[int]) -> list[str]:
        """The byte-level token strings ('Ġold')."""
        return [self.tokens[i] for i in ids]

    def display(self, token_id: int) -> str:
        """The text of one token ('Ġold' → ' old')."""
        return readable(piece_bytes(self.tokens[token_id]))

    def decode(self, ids: list[int]) -> str:
        return b"".join(piece_bytes(self.tokens[i]) for i in ids).decode("utf-8", errors="replace")


def build_tokenizer(reader) -> Tokenizer:
    """The tokenizer of a GGUF file (reader from ``gguf_file.open_reader``)."""
    from tokenizers import Regex, decoders, models, pre_tokenizers
    from tokenizers import Tokenizer as Backend

    kind = reader.fields["tokenizer.ggml.model"].contents() if "tokenizer.ggml.model" in reader.fields else None
    if kind != "gpt2":
        raise ModelFileError(f"tokenizer {kind!r} is not supported; only byte-level BPE ('gpt2') is")
    pre = reader.fields["tokenizer.ggml.pre"].contents() if "tokenizer.ggml.pre" in reader.fields else "default"
    if pre not in PRE_TOKENIZERS:
        raise ModelFileError(f"pre-tokenizer {pre!r} is not supported; known: {', '.join(sorted(PRE_TOKENIZERS))}")
    digits, split = PRE_TOKENIZERS[pre]
    tokens = tuple(reader.fields["tokenizer.ggml.tokens"].contents())
    merges = [tuple(m.split(" ", 1)) for m in reader.fields["tokenizer.ggml.merges"].contents()]
    backend = Backend(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    steps = [pre_tokenizers.Digits(individual_digits=True)] if digits else []
    steps += [pre_tokenizers.Split(Regex(split), behavior="isolated"),
              pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    backend.pre_tokenizer = pre_tokenizers.Sequence(steps)
    backend.decoder = decoders.ByteLevel()
    return Tokenizer(tokens=tokens, backend=backend)
