// Asking the server for JSON, and saying plainly what went wrong. An answer is read as JSON only
// when it says it is JSON: a proxy's error page, a static host's 404 or 405 (an exported site has
// no API) or a login page is HTML, and reading it as JSON shows the visitor "Unexpected token '<'".
// Instead the caller gets a message that names the status and what came back. In a static export
// the server's API is not asked at all: the message says the feature needs the server, with the
// page that explains it (lib/site.js needsServerUrl).
import { needsServerUrl, staticSite } from "./site.js";

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

/** Why an answer could not be used, with its HTTP status (0: never sent) and its JSON body, if any. */
export class AnswerError extends Error {
  constructor(message, { status = 0, body = null, needsServer = false } = {}) {
    super(message);
    this.name = "AnswerError";
    this.status = status;
    this.body = body;
    this.needsServer = needsServer;
    this.help = needsServer ? needsServerUrl() : null;
  }
}

/** The error for a server feature asked of a static export. */
export function needsServer(feature) {
  return new AnswerError(`${feature} needs the server: this copy of the talk is a static export`,
    { needsServer: true });
}

/** Whether an answer of this Content-Type may be read as JSON. A static host names a file's type by
 * its extension, and not every host knows .json: there a file that is not HTML is tried as JSON. */
function readable(type) {
  return JSON_TYPE.test(type) || (staticSite && type !== "" && !/html/i.test(type));
}

/** `res` read as JSON: {ok, status, body}. An answer that is not JSON gives ok false and a body
 * whose `message` says what came back instead. */
export async function readJson(res) {
  const type = (res.headers.get("content-type") || "").trim();
  const what = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
  if (!readable(type)) {
    const got = type.split(";")[0] || "no content type";
    return { ok: false, status: res.status, body: { message: `the server answered ${what} with ${got}, not JSON` } };
  }
  try {
    return { ok: res.ok, status: res.status, body: await res.json() };
  } catch (err) {
    return { ok: false, status: res.status, body: { message: `the server's answer (${what}) is not valid JSON` } };
  }
}

/** A URL of the server's own API ("/api/…", absolute): a static export has none. */
function serverApi(url) {
  return typeof url === "string" && url.startsWith("/api/");
}

/** fetch(url, init) read as JSON: its body, or an AnswerError with the server's message (a JSON
 * error body's `message`) or one that says what came back. `feature` names what was asked for in
 * the needs-the-server message of a static export ("A live room"). */
export async function fetchJson(url, init = {}, { feature = "This" } = {}) {
  if (staticSite && serverApi(url)) throw needsServer(feature);
  const answer = await readJson(await fetch(url, init));
  if (!answer.ok) {
    const message = typeof answer.body?.message === "string" ? answer.body.message : `HTTP ${answer.status}`;
    throw new AnswerError(message, answer);
  }
  return answer.body;
}
