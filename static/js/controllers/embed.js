// Embedding (`?embed=1`, inside another page's <iframe>): compact chrome and a small "open full
// screen" link; the keys act only once the frame has the focus (the browser gives it on a click or
// Tab). The parent page may drive the talk with postMessage, from the origins the server allows to
// embed it (ATTENTION_TALK_FRAME_ANCESTORS, sent as #embed-data):
//   in:  {type: "attention-talk:go", slide, step}                  (1-based, clamped to the deck)
//   out: {type: "attention-talk:state", deck, slide, step, slides, steps, paused} on every change
import { Controller } from "./controller.js";

const GO = "attention-talk:go", STATE = "attention-talk:state";

const DEFAULT_PORT = { "http:": "80", "https:": "443" };
const HOST_SOURCE = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^:/*]+)(?::(\d+|\*))?$/i;

/** Whether `origin` matches one CSP frame-ancestors source: 'self', *, a scheme (https:), or a host
 * source ([scheme://][*.]host[:port|:*]). */
export function originAllowed(origin, sources, self = location.origin) {
  let url;
  try { url = new URL(origin); } catch (e) { return false; }
  const port = url.port || DEFAULT_PORT[url.protocol] || "";
  return sources.some((src) => {
    if (src === "'self'") return url.origin === self;
    if (src === "*") return true;
    if (/^[a-z][a-z0-9+.-]*:$/i.test(src)) return url.protocol === src.toLowerCase();
    const m = HOST_SOURCE.exec(src);
    if (!m) return false;
    const [, scheme, wild, host, srcPort] = m;
    const wantScheme = `${(scheme || new URL(self).protocol.slice(0, -1)).toLowerCase()}:`;
    if (url.protocol !== wantScheme) return false;
    const h = host.toLowerCase();
    if (wild ? !url.hostname.endsWith(`.${h}`) : url.hostname !== h) return false;
    if (srcPort === "*") return true;
    return port === (srcPort || DEFAULT_PORT[wantScheme] || "");
  });
}

/** The embedding page's origin, when the browser tells it (Chromium, Safari), else from the referrer. */
function parentOrigin() {
  if (location.ancestorOrigins?.length) return location.ancestorOrigins[0];
  try { return document.referrer ? new URL(document.referrer).origin : null; } catch (e) { return null; }
}

export class EmbedController extends Controller {
  constructor(player, root, sources) {
    super(player);
    this.root = root;
    this.sources = sources;
    this.embedded = new URLSearchParams(location.search).get("embed") === "1" && window.parent !== window;
    this.parent = this.embedded ? parentOrigin() : null;
    this._onMessage = (e) => this.receive(e);
    this._onState = (e) => this.send(e.detail.state);
  }

  bind() {
    super.bind();
    if (new URLSearchParams(location.search).get("embed") === "1") this.chrome();
    if (!this.embedded) return this;
    window.addEventListener("message", this._onMessage);
    this.player.addEventListener("statechange", this._onState);
    return this;
  }

  unbind() {
    super.unbind();
    window.removeEventListener("message", this._onMessage);
    this.player.removeEventListener("statechange", this._onState);
  }

  /** Compact chrome: the page says it is embedded; a link opens the talk at this step on its own. */
  chrome() {
    document.documentElement.classList.add("embedded");
    const link = document.createElement("a");
    link.className = "embed-open";
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = "Open full screen ↗";
    this.link = link;
    this.root.appendChild(link);
    this.fixLink();
  }

  fixLink() {
    if (!this.link) return;
    const { slide, step } = this.player.state;
    this.link.href = `${location.pathname}#/${slide}/${step}`;
  }

  update(state) {
    this.fixLink();
    this.send(state);
  }

  receive(event) {
    if (event.source !== window.parent || !originAllowed(event.origin, this.sources)) return;
    const msg = event.data;
    if (!msg || typeof msg !== "object" || msg.type !== GO) return;
    if (!Number.isInteger(msg.slide) || !Number.isInteger(msg.step)) return;
    this.player.go(msg.slide, msg.step, { source: "embed" });
  }

  send(state) {
    if (!this.embedded || !this.parent || !originAllowed(this.parent, this.sources)) return;
    const p = this.player;
    window.parent.postMessage({ type: STATE, deck: p.manifest.id, slide: state.slide, step: state.step,
      slides: p.slideCount, steps: p.stepsOf(state.slide), paused: state.paused }, this.parent);
  }
}
