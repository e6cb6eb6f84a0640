// The speaker view's words: position, the slide's notes and the upcoming slide's title; and it
// moves the "next" preview's own player to the step after the current one.
import { Controller } from "./controller.js";

export class SpeakerNotesController extends Controller {
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
    const next = p.following(state);
    this.nextBox.classList.toggle("at-end", !next);
    const target = next ?? state;
    if (!this.nextPlayer.go(target.slide, target.step, { source: "follow" })) this.nextPlayer.refresh("follow");
  }
}
