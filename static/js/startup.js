// Start-up, shared by the talk page (main.js) and the speaker view (presenter.js): read the deck
// manifest and key table from the page, make the player and the frame store, open the step named in
// the URL, bind the page's own controllers and the shared ones, then announce the first step.
// (prepaint.js, a classic script, runs earlier on every page: colour scheme and stage size.)
import { BlackoutController } from "./controllers/blackout.js";
import { FullscreenController } from "./controllers/fullscreen.js";
import { HelpController } from "./controllers/help.js";
import { JumpController } from "./controllers/jump.js";
import { KeyboardController } from "./controllers/keyboard.js";
import { LocationController, parseHash } from "./controllers/location.js";
import { OverviewController } from "./controllers/overview.js";
import { SyncController } from "./controllers/sync.js";
import { FrameStore } from "./frames.js";
import { readJson } from "./lib/page-data.js";
import { Player } from "./player.js";

/**
 * Start the page whose root element has id `rootId`. `page` says what differs between pages:
 *   stage(app)     the controllers that show the step (stage, captions, previews…), bound first;
 *   more(app)      other page-only controllers, bound just before the key table;
 *   slidesFrom     the element whose slide <section>s the overview copies;
 *   blackout       {host, label}: where the blackout layer goes (default: the root) and its text;
 *   sync           false: no BroadcastChannel sync with this browser's other windows (a follower).
 * `app` is {manifest, player, frames, root}. Returns it, with the bound controllers.
 */
export function boot(rootId, page) {
  const manifest = readJson("deck-data");
  const root = document.getElementById(rootId);
  const player = new Player(manifest);
  const frames = new FrameStore(manifest.id, manifest.slides);
  const start = parseHash(location.hash);
  if (start) player.go(start.slide, start.step, { source: "location" });
  frames.prefetch(player.currentSlide.id).catch((err) => console.warn(err.message));

  const app = { manifest, player, frames, root };
  const { host = root, label = "" } = page.blackout ?? {};
  const controllers = [
    ...page.stage(app),
    new LocationController(player),
    new HelpController(player, root),
    // Modes that take keys before the key table bind in this order: blackout, jump, overview.
    new BlackoutController(player, host, { label }),
    new JumpController(player, root),
    new OverviewController(player, { slidesFrom: page.slidesFrom, host: root, frames }),
    new FullscreenController(player),
    ...(page.more?.(app) ?? []),
    new KeyboardController(player, readJson("key-data")),
  ].map((c) => c.bind());

  player.refresh("start");
  // after start-up: asks the other windows where we are
  if (page.sync !== false) controllers.push(new SyncController(player).bind());
  root.classList.add("ready");
  // A handle for tests and the browser console; no module reads it.
  window.attentionTalk = { player, frames, controllers };
  return { ...app, controllers };
}
