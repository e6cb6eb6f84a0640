// The speaker view (/talk/{deck}/presenter): what the audience sees now, the next step, the slide's
// notes, a timer and the clock. It has its own Player and stays on the same step as the talk's
// window (both ways) through SyncController; keys pressed here move the audience too.
import { BlackoutController } from "./controllers/blackout.js";
import { Controller } from "./controllers/controller.js";
import { FullscreenController } from "./controllers/fullscreen.js";
import { HelpController } from "./controllers/help.js";
import { JumpController } from "./controllers/jump.js";
import { KeyboardController } from "./controllers/keyboard.js";
import { LocationController, parseHash } from "./controllers/location.js";
import { OverviewController } from "./controllers/overview.js";
import { SyncController } from "./controllers/sync.js";
import { TimerController } from "./controllers/timer.js";
import { FrameStore } from "./frames.js";
import { Player, registerNavigation } from "./player.js";
import { following, PreviewStage } from "./preview.js";

const readJson = (id) => JSON.parse(document.getElementById(id).textContent);

/** Position, notes and the upcoming slide's title; and the "next" preview's own player. */
class SpeakerNotesController extends Controller {
  constructor(player, root, nextPlayer) {
    super(player);
    this.root = root;
    this.nextPlayer = nextPlayer;
    this.position = root.querySelector("#presenter-position");
    this.notes = root.querySelector("#speaker-notes");
    this.upcoming = root.querySelector("#upcoming-title");
    this.nextBox = root.querySelector("#preview-next");
  }

  update(state) {
    const p = this.player;
    const slide = p.slides[state.slide - 1];
    this.root.dataset.slide = slide.id;
    this.root.dataset.step = String(state.step);
    this.position.textContent =
      `slide ${state.slide}/${p.slideCount} · step ${state.step}/${p.stepsOf(state.slide)}`;
    this.notes.textContent = slide.notes;
    const upcoming = p.slides[state.slide];
    this.upcoming.textContent = upcoming ? upcoming.title : "(this is the last slide)";
    const next = following(p, state);
    this.nextBox.classList.toggle("at-end", !next);
    const target = next ?? state;
    if (!this.nextPlayer.go(target.slide, target.step, { source: "follow" })) this.nextPlayer.refresh("follow");
  }
}

const manifest = readJson("deck-data");
const keyTable = readJson("key-data");
const root = document.getElementById("presenter");
const player = new Player(manifest);
registerNavigation(player);
const nextPlayer = new Player(manifest);
const frames = new FrameStore(manifest.id, manifest.slides);

const start = parseHash(location.hash);
if (start) player.go(start.slide, start.step, { source: "location" });
frames.prefetch(player.currentSlide.id).catch((err) => console.warn(err.message));

const current = root.querySelector("#preview-current");
const controllers = [
  new PreviewStage(player, current, frames),
  new PreviewStage(nextPlayer, root.querySelector("#preview-next"), frames),
  new SpeakerNotesController(player, root, nextPlayer),
  new LocationController(player),
  new TimerController(player, root),
  new HelpController(player, root),
  new BlackoutController(player, current, { label: "The audience sees a {tone} screen · any key returns" }),
  new JumpController(player, root),
  new OverviewController(player, { slidesFrom: current, host: root, frames }),
  new FullscreenController(player),
  new KeyboardController(player, keyTable),
].map((c) => c.bind());

player.refresh("start");
controllers.push(new SyncController(player).bind());
root.classList.add("ready");
window.attentionTalk = { player, nextPlayer, frames, controllers };
