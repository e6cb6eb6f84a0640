"""attention-talk: an animated talk on transformer attention, every number computed by NumPy."""

__version__ = "0.1.0"
