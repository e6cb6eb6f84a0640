"""The key table: one list drives the keyboard handler (via the page) and the help overlay.

``keys`` are KeyboardEvent.key values ("Shift+" prefix for a shifted key). The JS player reads this
table from the page's JSON data block, so a key documented here is a key that works. A row with
``pages`` works only on those pages ("talk", "presenter", "follower"); the others work everywhere
unless a page leaves them out below.
"""

from __future__ import annotations

KEY_TABLE: list[dict] = [  # every row
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
    {"action": "textBigger", "keys": ["+", "="], "label": "+", "pages": ("talk", "follower"),
     "description": "Larger text (kept for the next visit)"},
    {"action": "textSmaller", "keys": ["-"], "label": "-", "pages": ("talk", "follower"),
     "description": "Smaller text"},
    {"action": "textReset", "keys": ["0"], "label": "0", "pages": ("talk", "follower"),
     "description": "Text back to its usual size"},
    {"action": "help", "keys": ["?", "F1"], "label": "? F1", "description": "Show or hide this help"},
    {"action": "close", "keys": ["Escape"], "label": "Esc",
     "description": "Close the overview or the help"},
    {"action": "qr", "keys": ["q"], "label": "Q", "pages": ("talk", "presenter"),
     "description": "Show the live room's QR code full screen on the audience screen"},
    {"action": "room", "keys": ["r"], "label": "R", "pages": ("presenter",),
     "description": "Start a live room: the audience follows on their own devices"},
    {"action": "live", "keys": ["c"], "label": "C", "pages": ("follower",),
     "description": "Catch up with the presenter (back to live)"},
]


def keys_for(page: str, without: tuple[str, ...] = ()) -> list[dict]:
    """The rows that work on ``page``, in table order, without the ``pages`` field."""
    return [{k: v for k, v in row.items() if k != "pages"} for row in KEY_TABLE
            if page in row.get("pages", (page,)) and row["action"] not in without]


# The speaker view has no speaker view of its own to open, no narration line to show, and keeps
# its own colours; a follower's page (/join/{code}) opens no speaker view either.
PRESENTER_KEYS: list[dict] = keys_for("presenter", without=("speaker", "text", "theme"))
FOLLOWER_KEYS: list[dict] = keys_for("follower", without=("speaker",))
KEYS: list[dict] = keys_for("talk")  # the talk page's rows: what its help lists
