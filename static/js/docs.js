// Starts Swagger UI from this origin (kept out of the HTML: the CSP forbids inline scripts). No deep
// links: they put a link inside each operation's toggle button (axe: nested-interactive).
window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: false });

// Example blocks scroll sideways: each is a Tab stop, so a keyboard can scroll it (axe:
// scrollable-region-focusable); the request body's box gets a name. Swagger UI draws both when an
// operation opens.
new MutationObserver(() => {
  for (const pre of document.querySelectorAll("#swagger-ui pre.microlight:not([tabindex])")) {
    pre.setAttribute("tabindex", "0");
  }
  for (const box of document.querySelectorAll("#swagger-ui textarea:not([aria-label])")) {
    box.setAttribute("aria-label", "Request body (JSON)");
  }
}).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
