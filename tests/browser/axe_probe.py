"""axe-core (from npm: node_modules/axe-core, installed by `npm ci`) run inside a page: every
violation of serious or critical impact under the WCAG 2.1 A/AA rules and axe's best practices."""

from __future__ import annotations

from pathlib import Path

AXE_JS = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

RUN = """async () => {
  const result = await axe.run(document, {runOnly: {type: 'tag',
    values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length}): ${v.nodes[0].target.join(' ')}`);
}"""


def serious_violations(page) -> list[str]:
    """Inject axe (page.evaluate is not bound by the page's CSP) and list what it finds."""
    assert AXE_JS.exists(), f"{AXE_JS} is missing: run `npm ci` (make lint does)"
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text(encoding="utf-8"))
    return page.evaluate(RUN)
