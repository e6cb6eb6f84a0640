// Start-up, shared by the talk page (main.js) and the speaker view (presenter.js): read the deck
// manifest and key table from the page, make the player and the frame store, open the step named in
// the URL, bind what the first paint needs, paint, then load and bind the rest (the overlays, the
// other keys, sync…) and mark the root "ready". A key pressed before its controller is bound is held
// until the rest is in, then acts (controllers/pending-keys.js).
// (prepaint.js, a classic script, runs earlier on every page: colour scheme and stage size.)
import { KeyboardController } from "./controllers/keyboard.js";
import { LocationController, parseHash } from "./controllers/location.js";
import { PendingKeys } from "./controllers/pending-keys.js";
import { FrameStore } from "./frames.js";
import { readJson } from "./lib/page-data.js";
import { stylesheets } from "./lib/stylesheet.js";
import { Player } from "./player.js";
import { loadMotion } from "./views/moving.js";

/** The controllers every page binds after its first paint: loaded, then a maker of them in their
 * order (modes that take keys before the key table bind in this order: blackout, jump, overview). */
async function shared() {
  const [{ HelpController }, { BlackoutController }, { JumpController }, { OverviewController },
    { FullscreenController }] = await Promise.all([import("./controllers/help.js"),
    import("./controllers/blackout.js"), import("./controllers/jump.js"), import("./controllers/overview.js"),
    import("./controllers/fullscreen.js")]);
  return ({ player, frames, root }, page) => {
    const { host = root, label = "" } = page.blackout ?? {};
    return [new HelpController(player, root), new BlackoutController(player, host, { label }),
      new JumpController(player, root),
      new OverviewController(player, { slidesFrom: page.slidesFrom, host: root, frames }),
      new FullscreenController(player)];
  };
}

/** Resolves once the first step is painted (or its frames failed: then there is nothing to wait for):
 * a frame after the one that drew it, so that nothing loaded later competes with that paint. */
function painted(first) {
  const next = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
  return first.then(next, next);
}

/**
 * Start the page whose root element has id `rootId`. `page` says what differs between pages:
 *   stage(app)     the controllers that show the step (stage, captions, previews…), bound first;
 *   later()        loads the page's controllers that wait for the first paint: a Promise of a maker,
 *                  (app) → [before, after, bound?], those bound before the shared ones (help, blackout,
 *                  jump, overview, fullscreen) and after them, in order; bound() runs once all are;
 *   css            style sheets (static/css) the later controllers need, applied before they are made;
 *   slidesFrom     the element whose slide <section>s the overview copies;
 *   blackout       {host, label}: where the blackout layer goes (default: the root) and its text;
 *   sync           false: no BroadcastChannel sync with this browser's other windows (a follower).
 * `app` is {manifest, player, frames, root, controllers}; `app.ready` settles once every controller
 * is bound. Returns it.
 */
export function boot(rootId, page) {
  const manifest = readJson("deck-data");
  const keys = readJson("key-data");
  const root = document.getElementById(rootId);
  const player = new Player(manifest);
  const frames = new FrameStore(manifest.id, manifest.slides);
  const start = parseHash(location.hash);
  if (start) player.go(start.slide, start.step, { source: "location" });
  const first = frames.loadStep(player.currentSlide.id, player.state.step);
  first.catch((err) => console.warn(err.message));

  const app = { manifest, player, frames, root };
  const keyboard = new KeyboardController(player, keys);
  app.controllers = [...page.stage(app), new LocationController(player), keyboard].map((c) => c.bind());
  const pending = new PendingKeys(player, keys).bind();
  const rest = painted(first).then(() => bindLater(app, page, keyboard));
  app.ready = rest.catch((err) => console.error(`start-up: ${err.message}`)).finally(() => {
    pending.replay();
    root.classList.add("ready");
  });
  // the other slides' frames once the page is whole: their requests would queue before its modules
  frames.prefetch(player.currentSlide.id, app.ready, player.state.step);
  player.refresh("start");
  // A handle for tests and the browser console; no module reads it.
  window.attentionTalk = app;
  return app;
}

/** Load, make and bind the controllers that the first paint did not need, in their order; tell each
 * where the player is (they missed the start); the key table listens last again. */
async function bindLater(app, page, keyboard) {
  const { player } = app;
  const none = () => [[], []];
  // views/motion.js too: held keys act once the page is ready, so the first step change moves
  const [, makeLater, makeShared, { SyncController }] = await Promise.all([stylesheets(page.css ?? []),
    page.later?.() ?? none, shared(), import("./controllers/sync.js"), loadMotion()]);
  const [before, after, bound] = makeLater(app);
  const added = [...before, ...makeShared(app, page), ...after];
  const state = { ...player.state };
  for (const c of added) {
    c.bind();
    c.update(state, { state, previous: state, source: "start" });
  }
  bound?.();
  keyboard.unbind();
  keyboard.bind();
  // after start-up: asks the other windows where we are
  if (page.sync !== false) added.push(new SyncController(player).bind());
  app.controllers.push(...added);
}
