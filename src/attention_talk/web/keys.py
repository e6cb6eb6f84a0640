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
    {"action": "jump", "keys": ["g"], "label": "G",
     "description": "Go to a slide: G, its number, then Enter"},
    {"action": "overview", "keys": ["o"], "label": "O",
     "description": "Overview of every slide (arrows move, Enter jumps)"},
    {"action": "blackout", "keys": ["b", "."], "label": "B .",
     "description": "Black out the screen (any key returns)"},
    {"action": "whiteout", "keys": ["w"], "label": "W",
     "description": "White out the screen (any key returns)"},
    {"action": "speaker", "keys": ["s"], "label": "S",
     "description": "Open the speaker view in a second window"},
    {"action": "fullscreen", "keys": ["f"], "label": "F", "description": "Full screen on or off"},
    {"action": "theme", "keys": ["d"], "label": "D",
     "description": "Dark or light colours (kept for the next visit)"},
    {"action": "text", "keys": ["t"], "label": "T",
     "description": "Show or hide the narration (for reading alone)"},
    {"action": "help", "keys": ["?", "F1"], "label": "? F1", "description": "Show or hide this help"},
    {"action": "close", "keys": ["Escape"], "label": "Esc",
     "description": "Close the overview or the help"},
]

# The speaker view has no speaker view of its own to open, no narration line to show, and keeps
# its own colours.
PRESENTER_KEYS: list[dict] = [k for k in KEYS if k["action"] not in ("speaker", "text", "theme")]
