// Starts Swagger UI from this origin (kept out of the HTML: the CSP forbids inline scripts).
window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
