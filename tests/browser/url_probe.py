"""Waiting for the URL's hash from a page function: the page's CSP (no 'unsafe-eval') forbids a
polling wait_for_function. The player writes the hash with the step (controllers/location.js)."""

from __future__ import annotations

UNTIL_HASH = """(hash) => new Promise((resolve) => {
  const until = performance.now() + 10000;
  const poll = () => (location.hash === hash || performance.now() > until
    ? resolve(location.hash) : setTimeout(poll, 10));
  poll();
})"""


def wait_hash(page, hash_: str) -> str:
    """Wait (up to 10 s) until the URL's hash is `hash_`; returns the hash then."""
    return page.evaluate(UNTIL_HASH, hash_)
