"""The URL's hash once the player has written it: controllers/location.js writes a step's URL after
the step is painted (and at most every 300 ms while stepping), so a test reads it once it has
caught up with the player's state (or after 3 s, whatever it says then)."""

from __future__ import annotations

SETTLED_HASH = """() => new Promise((resolve) => {
  const until = performance.now() + 3000;
  const poll = () => {
    const s = window.attentionTalk?.player.state;
    if (!s || location.hash === `#/${s.slide}/${s.step}` || performance.now() > until) resolve(location.hash);
    else setTimeout(poll, 10);
  };
  poll();
})"""


def settled_hash(page) -> str:
    return page.evaluate(SETTLED_HASH)


# Polled from a page function: the page's CSP (no 'unsafe-eval') forbids a polling wait_for_function.
UNTIL_HASH = """(hash) => new Promise((resolve) => {
  const until = performance.now() + 10000;
  const poll = () => (location.hash === hash || performance.now() > until
    ? resolve(location.hash) : setTimeout(poll, 10));
  poll();
})"""


def wait_hash(page, hash_: str) -> str:
    """Wait (up to 10 s) until the URL's hash is `hash_`; returns the hash then."""
    return page.evaluate(UNTIL_HASH, hash_)
