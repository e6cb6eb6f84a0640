"""The key table: one list drives the keyboard handler (via the page) and the help overlay.

``keys`` are KeyboardEvent.key values ("Shift+" prefix for a shifted key). The JS player reads this
table from the page's JSON data block, so a key documented here is a key that works.
"""

from __future__ import annotations

KEYS: list[dict] = [
    {"action": "next", "keys": ["ArrowRight", "ArrowDown", " ", "PageDown", "n", "l", "j"],
     "label": "→ ↓ Space PageDown N L J", "description": "Next step"},
    {"action": "prev", "keys": ["ArrowLeft", "ArrowUp", "PageUp", "p", "h", "k", "Backspace"],
     "label": "← ↑ PageUp P H K Backspace", "description": "Previous step"},
    {"action": "nextSlide", "keys": ["Shift+ArrowRight"], "label": "Shift+→",
     "description": "Next slide"},
    {"action": "prevSlide", "keys": ["Shift+ArrowLeft"], "label": "Shift+←",
     "description": "Previous slide"},
    {"action": "first", "keys": ["Home"], "label": "Home", "description": "First step of the talk"},
    {"action": "last", "keys": ["End"], "label": "End", "description": "Last step of the talk"},
    {"action": "text", "keys": ["t"], "label": "T",
     "description": "Show or hide the narration (for reading alone)"},
    {"action": "help", "keys": ["?"], "label": "?", "description": "Show or hide this help"},
    {"action": "close", "keys": ["Escape"], "label": "Esc", "description": "Close an open panel"},
]
