// The talk page (/talk/{deck}): the audience's stage, its caption bar and progress, and the keys
// that only the audience window has (speaker view, theme, narration, text size, swipes, on-screen
// controls, reading on a phone, the token picker, the live room's QR code), and embedding in another
// page (?embed=1, postMessage). The same page at /join/{code} (a #room-data block) follows a live room
// instead, and keeps out of this browser's other windows of the deck (no BroadcastChannel sync).
// The first paint needs only the stage, the caption, the progress and the lab link (and, on a phone
// held upright, at a larger text size or embedded, what reads or frames the stage: loaded first);
// the rest loads just after it (startup.js), its style sheets applied before it draws anything.
import { CaptionController } from "./controllers/caption.js";
import { LabLinkController } from "./controllers/lab-link.js";
import { ProgressController } from "./controllers/progress.js";
import { StageController } from "./controllers/stage.js";
import { readJson } from "./lib/page-data.js";
import { stageLayout, storedTextSize } from "./lib/stage-size.js";
import { stylesheets } from "./lib/stylesheet.js";
import { boot } from "./startup.js";

const root = document.getElementById("player");
const room = document.getElementById("room-data") ? readJson("room-data") : null;
const embedded = new URLSearchParams(location.search).get("embed") === "1";
const reads = storedTextSize() !== 1 || stageLayout(window.innerWidth, window.innerHeight).reading;

const [readingModule, textSizeModule, embedModule] = await Promise.all([
  reads ? import("./controllers/reading.js") : null, reads ? import("./controllers/text-size.js") : null,
  embedded ? import("./controllers/embed.js") : null,
  stylesheets([...(reads ? ["reading.css"] : []), ...(embedded ? ["present.css"] : [])])]);

const early = { stage: null, reading: null, textSize: null };

/** Reading a part at a time and the text size: made before the first paint when it reads. */
function readingControllers({ ReadingController }, { TextSizeController }, { player, frames }) {
  early.reading = new ReadingController(player, root, frames, early.stage);
  early.textSize = new TextSizeController(player, early.stage);
  return [early.reading, early.textSize];
}

/** What waits for the first paint: loaded, then made in the order they bind. */
async function later() {
  const [{ DerivationController }, { OnscreenController }, readingM, textSizeM, speakerM, followerM, qrM,
    { ThemeController }, { TokenPickerKeys }, { TouchController }, hintM, { CornersController }] = await Promise.all([
    import("./controllers/derivation.js"), import("./controllers/onscreen.js"),
    readingModule ?? import("./controllers/reading.js"), textSizeModule ?? import("./controllers/text-size.js"),
    room ? null : import("./controllers/speaker.js"), room ? import("./controllers/room-follower.js") : null,
    room ? null : import("./controllers/room-qr.js"), import("./controllers/theme.js"),
    import("./controllers/token-picker.js"), import("./controllers/touch.js"),
    room || embedded ? null : import("./controllers/first-hint.js"), import("./controllers/corners.js")]);
  return (app) => {
    const { player, frames } = app;
    const { stage } = early;
    const derivations = new DerivationController(player, root, frames);
    stage.derivations = derivations;
    if (stage.shown) derivations.attach(...stage.shown);
    const before = [derivations];
    if (!early.reading) {
      before.push(...readingControllers(readingM, textSizeM, app));
      if (stage.shown) early.reading.drawn({ slide: stage.shown[1].slide, step: stage.shown[1].step });
    }
    before.push(new OnscreenController(player, root, { reading: early.reading, textSize: early.textSize }));
    const after = [room ? new followerM.RoomFollowerController(player, root, room) : new speakerM.SpeakerController(player),
      room ? null : new qrM.RoomQrController(player, root), new ThemeController(player),
      new TokenPickerKeys(player, root), new TouchController(player, document),
      hintM ? new hintM.FirstHintController(player, root) : null, new CornersController(player, root)].filter(Boolean);
    // A part read before the on-screen buttons were there: they learn which (readingpart) now.
    const bound = () => { if (early.reading.parts?.length) early.reading.show(false); };
    return [before, after, bound];
  };
}

boot("player", {
  stage(app) {
    const { player, frames } = app;
    const caption = new CaptionController(player, root);
    early.stage = new StageController(player, root, frames, { caption });
    const shown = [early.stage, caption, new ProgressController(player, root), new LabLinkController(player, root)];
    if (reads) shown.push(...readingControllers(readingModule, textSizeModule, app));
    if (embedded) shown.push(new embedModule.EmbedController(player, root, readJson("embed-data").frame_ancestors));
    return shown;
  },
  later,
  css: ["present.css", "rooms.css", "reading.css"],
  slidesFrom: root.querySelector("#stage"),
  sync: !room,
});
