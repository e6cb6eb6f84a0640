"""Take the talk anywhere: ``attention-talk export``.

- ``site.py``: a folder that plays the talk from any static host (pages, assets and every frame as
  files), made by asking the app itself for each page, so it is the same player byte for byte
  but for its links;
- ``browser.py``: a PDF of the print view and one PNG per step, drawn by Chromium through
  Playwright (an optional extra: ``pip install 'attention-talk[export]'``);
- ``local.py``: the app answering in-process (for the site) or on a free loopback port (for the
  browser).
"""

from __future__ import annotations

from attention_talk.export.site import Summary, export_site

__all__ = ["Summary", "export_site"]
