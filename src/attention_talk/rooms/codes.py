"""Room codes and presenter secrets, both from ``secrets``.

A code is read aloud and typed on a phone: nine characters of Crockford's base-32 alphabet (no I, L,
O or U), 45 bits, shown as three groups of three (``7KQ-2MX-9D4``). Typing is forgiven: case,
dashes and spaces are ignored, and O, I and L read as 0, 1 and 1. A secret is 256 random bits; the
server keeps only its SHA-256 digest and compares digests in constant time.

``normalise_code`` is the one gate every entry point (the HTTP routes, the WebSocket) and both hubs
pass a typed code through before it names anything: only ASCII letters and digits of the alphabet,
dashes and spaces get through, so no suffix (``:followers``), separator, glob character or Unicode
look-alike (``ı`` upper-cases to ``I``, ``ﬀ`` to ``FF``) can reach a Redis key or a dict.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 9  # 32**9 = 2**45 codes
CODE_BITS = 5 * CODE_LENGTH
MAX_TYPED = 20  # a code as typed (groups, spaces) is at most this long; anything longer is not one
_TYPED = frozenset(ALPHABET + ALPHABET.lower() + "OILoil- ")
_TYPOS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: object) -> str | None:
    """The code a person meant, or None when ``text`` cannot be one. Every character is checked
    against the ASCII set a code may be typed with *before* anything is upper-cased: ``str.upper``
    maps some non-ASCII letters onto ASCII ones."""
    if not isinstance(text, str) or len(text) > MAX_TYPED or not _TYPED.issuperset(text):
        return None
    code = text.upper().translate(_TYPOS)
    return code if len(code) == CODE_LENGTH else None


def is_code(code: object) -> bool:
    """Whether ``code`` is already a code in its one stored form (what a hub keys its rooms by)."""
    return isinstance(code, str) and len(code) == CODE_LENGTH and all(c in ALPHABET for c in code)


def spoken(code: str) -> str:
    """The code in groups of three, for reading aloud."""
    return "-".join(code[i:i + 3] for i in range(0, len(code), 3))


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str | None, stored_digest: str) -> bool:
    """Whether ``secret`` is the room's, compared in constant time (digests of equal length)."""
    return hmac.compare_digest(digest(secret or ""), stored_digest)
