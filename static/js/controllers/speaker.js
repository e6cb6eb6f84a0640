// S opens the speaker view in a second window (or brings it to the front if it is already open).
import { talkUrl } from "../lib/site.js";
import { Controller } from "./controller.js";

export class SpeakerController extends Controller {
  constructor(player) {
    super(player);
    this.url = talkUrl(player.manifest.id, "presenter");
    this.windowName = `attention-talk-presenter-${player.manifest.id}`;
    player.register("speaker", () => this.open());
  }

  open() {
    // No "noopener": the two windows talk through a BroadcastChannel, not through window.opener,
    // but a named window lets a second S focus the existing speaker view instead of opening another.
    const win = window.open(this.url, this.windowName, "popup,width=1280,height=800");
    win?.focus?.();
    return win;
  }
}
