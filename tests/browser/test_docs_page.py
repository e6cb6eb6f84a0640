"""/docs renders the API with Swagger UI from this origin: an operation really appears, no console
error, no CSP violation, no request elsewhere."""

from __future__ import annotations


def test_docs_render_operations_offline(page, server_url, watch) -> None:
    page.goto(f"{server_url}/docs")
    op = page.locator(".opblock-summary-path", has_text="/api/attention")
    op.first.wait_for(timeout=15_000)
    assert page.locator(".opblock").count() >= 6  # every route is listed, not an error box
    assert page.get_by_text("Unable to render this definition").count() == 0
    op.first.click()  # expand it: the request body's schema (a model of schemas.py) is shown
    # the schema is drawn after the body opens: wait for it (a loaded machine draws it late)
    page.locator(".opblock-body").first.get_by_text("d_model").first.wait_for(timeout=60_000)
    assert page.locator(".opblock-body").first.get_by_text("d_model").count() >= 1
    watch.assert_clean()
