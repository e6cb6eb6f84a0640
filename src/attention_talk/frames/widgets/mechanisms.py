"""Widget kinds that draw a mechanism as it happens (issue 30): softmax as a process, the mask
added to the scores, scaling by √d_k. Each is fed only with numbers the engine computed (by the
kit functions in ``frames/kit/mechanisms.py``)."""

from __future__ import annotations

from attention_talk.frames.widgets.base import Widget, WidgetData  # noqa: F401 - the kinds below subclass these
