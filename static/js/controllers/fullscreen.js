// F toggles full screen. Browsers may refuse (no user gesture, an iframe, headless): that is not
// an error worth a console message, so the refusal is caught and ignored.
import { Controller } from "./controller.js";

export class FullscreenController extends Controller {
  constructor(player, element = document.documentElement) {
    super(player);
    this.element = element;
    player.register("fullscreen", () => this.toggle());
  }

  toggle() {
    const ignore = () => {};
    if (document.fullscreenElement) {
      document.exitFullscreen?.()?.catch?.(ignore);
    } else if (this.element.requestFullscreen) {
      try {
        const p = this.element.requestFullscreen({ navigationUI: "hide" });
        p?.catch?.(ignore);
      } catch (e) { /* refused synchronously by an older browser */ }
    }
  }
}
