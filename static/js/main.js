// Entry point: read the deck manifest and key table from the page, wire the player to its
// controllers and views, then open the step named in the URL.
import { BlackoutController } from "./controllers/blackout.js";
import { CaptionController } from "./controllers/caption.js";
import { FullscreenController } from "./controllers/fullscreen.js";
import { HelpController } from "./controllers/help.js";
import { JumpController } from "./controllers/jump.js";
import { KeyboardController } from "./controllers/keyboard.js";
import { LocationController, parseHash } from "./controllers/location.js";
import { OverviewController } from "./controllers/overview.js";
import { ProgressController } from "./controllers/progress.js";
import { SpeakerController } from "./controllers/speaker.js";
import { SyncController } from "./controllers/sync.js";
import { ThemeController } from "./controllers/theme.js";
import { TouchController } from "./controllers/touch.js";
import { FrameStore } from "./frames.js";
import { Player, registerNavigation } from "./player.js";
import { StageView } from "./views/stage.js";

const readJson = (id) => JSON.parse(document.getElementById(id).textContent);

const manifest = readJson("deck-data");
const keyTable = readJson("key-data");
const root = document.getElementById("player");
const player = new Player(manifest);
registerNavigation(player);
const frames = new FrameStore(manifest.id, manifest.slides);

const start = parseHash(location.hash);
if (start) player.go(start.slide, start.step, { source: "location" });
frames.prefetch(player.currentSlide.id).catch((err) => console.warn(err.message));

const controllers = [
  new StageView(player, root, frames),
  new CaptionController(player, root),
  new ProgressController(player, root),
  new LocationController(player),
  new HelpController(player, root),
  // Modes that take keys first (blackout, then jump, then overview) bind before the key table.
  new BlackoutController(player, root),
  new JumpController(player, root),
  new OverviewController(player, { slidesFrom: root.querySelector("#stage"), host: root, frames }),
  new FullscreenController(player),
  new SpeakerController(player),
  new ThemeController(player),
  new KeyboardController(player, keyTable),
  new TouchController(player, root),
].map((c) => c.bind());

player.refresh("start");
controllers.push(new SyncController(player).bind()); // after start-up: asks the other windows where we are
root.classList.add("ready");
window.attentionTalk = { player, frames, controllers };
