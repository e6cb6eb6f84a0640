// The speaker view (/talk/{deck}/presenter): what the audience sees now, the next step, the slide's
// notes, a timer and the clock. It has its own Player and stays on the same step as the talk's
// window (both ways) through SyncController; keys pressed here move the audience too. It can start
// a live room (R): then every step also reaches the followers' devices. All of it shows at once;
// the overlays and other keys load after the first paint (startup.js).
import { PreviewStage } from "./controllers/preview.js";
import { RoomPresenterController } from "./controllers/room-presenter.js";
import { SpeakerNotesController } from "./controllers/speaker-notes.js";
import { TimerController } from "./controllers/timer.js";
import { Player } from "./player.js";
import { boot } from "./startup.js";

const root = document.getElementById("presenter");
const current = root.querySelector("#preview-current");

boot("presenter", {
  stage({ manifest, player, frames }) {
    const nextPlayer = new Player(manifest); // the "next" preview: one step ahead of the talk
    return [new PreviewStage(player, current, frames),
      new PreviewStage(nextPlayer, root.querySelector("#preview-next"), frames),
      new SpeakerNotesController(player, root, nextPlayer), new TimerController(player, root),
      new RoomPresenterController(player, root, frames)]; // live rooms: R starts one
  },
  slidesFrom: current,
  blackout: { host: current, label: "The audience sees a {tone} screen · any key returns" },
});
