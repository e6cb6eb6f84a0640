"""A real model's attention, computed by our NumPy engine, offline: SmolLM2-135M by default.

    >>> from attention_talk.model import load
    >>> model = load()              # once per process; ModelMissing says how to install it
    >>> run = model.run("the old dog sleeps by the fire", layers=[3], heads=[0, 1])
    >>> run.tokens                  # ['the', ' old', ' dog', ' sleep', 's', ' by', ' the', ' fire']
    >>> run.head(3, 1).weights      # (8, 8) attention weights of layer 3, head 1
    >>> run.next_tokens[:3]         # the most likely next tokens with their probabilities

The weights come from a Llama-architecture GGUF file (``gguf_file``), the tokenizer from the same
file (``tokenizer``), and every layer runs in NumPy float64 (``forward``) with RoPE and
grouped-query attention from ``attention_talk.engine`` — the same code the talk's slides use.
"""

from typing import TYPE_CHECKING

from attention_talk.lazy import lazy_exports
from attention_talk.model.gguf_file import (  # no NumPy, no gguf: the web app's start-up needs these
    ENV_PATH,
    INSTALL_HINT,
    Config,
    ModelFileError,
    ModelMissing,
    default_path,
    package_file,
)
from attention_talk.model.loading import Loader, load, loader
from attention_talk.model.tokenizer import Tokenizer, TokenizerError

if TYPE_CHECKING:
    from attention_talk.model.forward import Decoder, Trace, Weights
    from attention_talk.model.runner import MAX_TOKENS, WANTS, HeadMaps, Model, NextToken, Run

# The NumPy modules load on first use of one of their names (attention_talk/lazy.py).
lazy_exports(__name__, {**dict.fromkeys(["Decoder", "Trace", "Weights"], "forward"),
                        **dict.fromkeys(["MAX_TOKENS", "WANTS", "HeadMaps", "Model", "NextToken", "Run"], "runner")})

__all__ = [
    "ENV_PATH",
    "INSTALL_HINT",
    "MAX_TOKENS",
    "WANTS",
    "Config",
    "Decoder",
    "HeadMaps",
    "Loader",
    "Model",
    "ModelFileError",
    "ModelMissing",
    "NextToken",
    "Run",
    "Tokenizer",
    "TokenizerError",
    "Trace",
    "Weights",
    "default_path",
    "load",
    "loader",
    "package_file",
]
