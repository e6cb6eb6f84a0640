"""What ``POST /api/attention`` can return, and how many numbers that is: the tensor names and
``response_numbers``, without NumPy, so the web app's schemas and its size check are ready at
start-up while ``chain.py`` (the chain itself, NumPy) loads on the first request."""

from __future__ import annotations

from collections.abc import Iterable

PER_HEAD = ("q", "k", "v", "scores", "masked", "weights", "output")  # tensors of each head
WHOLE = ("concat", "final")  # the heads side by side; the layer's output (`output` in the response)
TENSORS = PER_HEAD + WHOLE
DEFAULT_INCLUDE = ("weights",)  # the attention maps; ask with `include` for more (the lab asks for its three)
NUMBER_FORMS = ("scaled", "decimal")  # integers in units of 10^-digits, or decimals (the default)


def response_numbers(n: int, *, d_model: int, heads: int, d_k: int, include: Iterable[str]) -> int:
    """How many numbers a response with these tensors holds (the size that matters; each number
    takes about ``digits`` + 2 bytes of JSON)."""
    size = {"q": heads * n * d_k, "k": heads * n * d_k, "v": heads * n * d_k, "output": heads * n * d_k,
            "scores": heads * n * n, "masked": heads * n * n, "weights": heads * n * n,
            "concat": n * heads * d_k, "final": n * d_model}
    return sum(size[t] for t in set(include))
