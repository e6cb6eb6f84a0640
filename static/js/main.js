// The talk page (/talk/{deck}): the audience's stage, its caption bar and progress, and the keys
// that only the audience window has (speaker view, theme, narration, text size, swipes, on-screen
// controls, reading on a phone, the token picker, the live room's QR code), and embedding in another
// page (?embed=1, postMessage). The same page at /join/{code} (a #room-data block) follows a live room
// instead, and keeps out of this browser's other windows of the deck (no BroadcastChannel sync).
import { CaptionController } from "./controllers/caption.js";
import { DerivationController } from "./controllers/derivation.js";
import { EmbedController } from "./controllers/embed.js";
import { LabLinkController } from "./controllers/lab-link.js";
import { OnscreenController } from "./controllers/onscreen.js";
import { ProgressController } from "./controllers/progress.js";
import { RoomFollowerController } from "./controllers/room-follower.js";
import { RoomQrController } from "./controllers/room-qr.js";
import { SpeakerController } from "./controllers/speaker.js";
import { ReadingController } from "./controllers/reading.js";
import { StageController } from "./controllers/stage.js";
import { TextSizeController } from "./controllers/text-size.js";
import { ThemeController } from "./controllers/theme.js";
import { TokenPickerKeys } from "./controllers/token-picker.js";
import { TouchController } from "./controllers/touch.js";
import { readJson } from "./lib/page-data.js";
import { boot } from "./startup.js";

const root = document.getElementById("player");
const room = document.getElementById("room-data") ? readJson("room-data") : null;

boot("player", {
  stage({ player, frames }) {
    const caption = new CaptionController(player, root);
    const derivations = new DerivationController(player, root, frames);
    const stage = new StageController(player, root, frames, { caption, derivations });
    const reading = new ReadingController(player, root, frames, stage);
    const textSize = new TextSizeController(player, stage);
    return [stage, caption, derivations, new ProgressController(player, root), reading, textSize,
      new OnscreenController(player, root, { reading, textSize })];
  },
  slidesFrom: root.querySelector("#stage"),
  more: ({ player }) => [room ? new RoomFollowerController(player, root, room) : new SpeakerController(player),
    room ? null : new RoomQrController(player, root), new ThemeController(player),
    new TokenPickerKeys(player, root), new TouchController(player, document),
    new EmbedController(player, root, readJson("embed-data").frame_ancestors),
    new LabLinkController(player, root)].filter(Boolean),
  sync: !room,
});
