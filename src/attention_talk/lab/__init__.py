"""The lab's maths: what ``/lab`` and the API behind it compute for a user's own sentence, on plain
arguments (the web layer validates the requests and runs these in worker threads).

- ``sizes.py``: what the illustrative chain can return and how many numbers that is (no NumPy:
  the web app's schemas and size check need it at start-up);
- ``chain.py``: the illustrative chain, one multi-head attention layer with seeded random weights
  (``illustrative_chain`` → ``IllustrativeChain``, each tensor computed when first asked for);
- ``wire.py``: the chain as ``POST /api/attention`` writes it (``chain_json``: the tensors asked
  for, as decimals or scaled integers);
- ``cells.py``: one cell of a head's map explained, term by term (``chain_cell``, ``derive_cell``);
- ``model_view.py``: the real model's view of a text (``model_maps``, ``model_lab``, ``model_cell``).

It sits above ``engine``, ``model`` and ``frames`` (the derivation kit) and below ``web``. Importing
the package or ``sizes`` imports no NumPy; the other names load their module on first use.
"""

from typing import TYPE_CHECKING

from attention_talk.lazy import lazy_exports

if TYPE_CHECKING:
    from attention_talk.lab.cells import FieldError, chain_cell, derive_cell
    from attention_talk.lab.chain import IllustrativeChain, illustrative_chain, one_blas_thread_per_request
    from attention_talk.lab.model_view import model_cell, model_lab, model_maps
    from attention_talk.lab.wire import chain_json

lazy_exports(__name__, {
    **dict.fromkeys(["FieldError", "chain_cell", "derive_cell"], "cells"),
    **dict.fromkeys(["IllustrativeChain", "illustrative_chain", "one_blas_thread_per_request"], "chain"),
    **dict.fromkeys(["model_cell", "model_lab", "model_maps"], "model_view"),
    "chain_json": "wire",
})

__all__ = ["FieldError", "IllustrativeChain", "chain_cell", "chain_json", "derive_cell", "illustrative_chain",
           "model_cell", "model_lab", "model_maps", "one_blas_thread_per_request"]
