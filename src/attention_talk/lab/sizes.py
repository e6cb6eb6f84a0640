"""What the illustrative chain can return, and how large an answer is, without NumPy: the web app's
schemas and its size check need these at start-up, while the chain itself (``chain.py``, NumPy)
loads on the first request or with the start-up warm."""

from __future__ import annotations

from collections.abc import Iterable

PER_HEAD = ("q", "k", "v", "scores", "masked", "weights", "output")  # tensors of each head
WHOLE = ("concat", "final")  # the heads side by side; the layer's output (`output` in the response)
TENSORS = PER_HEAD + WHOLE
DEFAULT_INCLUDE = ("weights",)  # the attention maps; ask with `include` for more (the lab asks for its three)
NUMBER_FORMS = ("scaled", "decimal")  # integers in units of 10^-digits, or decimals (the default)


def head_width(d_model: int, heads: int, d_k: int | None) -> int:
    """d_k, or d_model / heads when none is given (the request's schema checks that heads divide it)."""
    return d_k or d_model // heads


def response_numbers(n: int, *, d_model: int, heads: int, d_k: int, include: Iterable[str]) -> int:
    """How many numbers a response with these tensors holds (the size that matters; each number
    takes about ``digits`` + 2 bytes of JSON)."""
    size = {"q": heads * n * d_k, "k": heads * n * d_k, "v": heads * n * d_k, "output": heads * n * d_k,
            "scores": heads * n * n, "masked": heads * n * n, "weights": heads * n * n,
            "concat": n * heads * d_k, "final": n * d_model}
    return sum(size[t] for t in set(include))


def too_large(n: int, *, d_model: int, heads: int, d_k: int, include: Iterable[str], limit: int) -> dict | None:
    """None when an answer for ``n`` tokens holds at most ``limit`` numbers; else the refusal's body:
    the message naming the fields that would make it smaller, the count, the limit and those fields."""
    numbers = response_numbers(n, d_model=d_model, heads=heads, d_k=d_k, include=include)
    if numbers <= limit:
        return None
    wanted = set(include)
    fields = [f"tokens ({n})"]
    if wanted - {"final"}:
        fields.append(f"heads ({heads})")
    if wanted & {"q", "k", "v", "output", "concat"}:
        fields.append(f"d_k ({d_k})")
    if "final" in wanted:
        fields.append(f"d_model ({d_model})")
    names = ", ".join(f.split()[0] for f in fields)
    message = (f"{names}, include: the response would hold {numbers:,} numbers, more than the limit of "
               f"{limit:,}; reduce {', '.join(fields)} or include fewer tensors ({', '.join(sorted(wanted))})")
    return {"message": message, "numbers": numbers, "limit": limit, "reduce": [*names.split(", "), "include"]}
