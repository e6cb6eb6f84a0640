// The phone remote (/remote/{code}#secret=…): large Previous / Next / Blackout buttons that drive the
// live room as the speaker view does, with the current caption, the slide's notes and a timer. The
// secret comes in the link's fragment (never sent to the server in a URL); it moves to this tab's
// sessionStorage and leaves the address bar at once. The room's position is the truth: the remote
// adopts it on every (re)connection (RoomDriver without `lead`).
import { RoomDriver } from "./controllers/room-driver.js";
import { TimerController } from "./controllers/timer.js";
import { readJson } from "./lib/page-data.js";
import { RoomSocket } from "./lib/room-socket.js";
import { Player } from "./player.js";

const STATUS = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…",
  ended: "room ended", refused: "not allowed: scan the speaker view's QR code again" };

const manifest = readJson("deck-data");
const room = readJson("room-data");
const root = document.getElementById("remote");
const $ = (id) => document.getElementById(id);

function takeSecret() {
  const key = `attention-talk-remote:${room.code}`;
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("secret");
  if (fromLink) {
    try { sessionStorage.setItem(key, fromLink); } catch { /* storage off: this page load only */ }
    history.replaceState(null, "", location.pathname + location.search);
    return fromLink;
  }
  try { return sessionStorage.getItem(key); } catch { return null; }
}

function show(player, state, followers) {
  const slide = player.slides[state.slide - 1];
  root.dataset.slide = slide.id;
  root.dataset.step = String(state.step);
  $("remote-position").textContent =
    `slide ${state.slide}/${player.slideCount} · step ${state.step}/${player.stepsOf(state.slide)}`;
  $("remote-caption").textContent = slide.captions[state.step - 1] ?? "";
  $("remote-notes").textContent = slide.notes;
  const blackout = $("remote-blackout");
  blackout.setAttribute("aria-pressed", String(state.paused === "black"));
  blackout.textContent = state.paused ? "Screen back" : "Blackout";
  if (followers !== undefined) root.dataset.followers = String(followers);
}

function start() {
  const player = new Player(manifest);
  const secret = takeSecret();
  if (!secret) { $("remote-missing").hidden = false; root.dataset.status = "refused"; return; }
  const socket = new RoomSocket(room.code, { type: "hello", role: "presenter", secret });
  let followers;
  const driver = new RoomDriver(player, socket, { onState: (msg) => { followers = msg.followers; } });
  const render = () => show(player, player.state, followers);
  player.addEventListener("stepchange", render);
  player.addEventListener("statechange", render);
  socket.addEventListener("state", render);
  socket.addEventListener("status", (e) => {
    root.dataset.status = e.detail.status;
    $("remote-status").textContent = STATUS[e.detail.status] ?? e.detail.status;
    for (const id of ["remote-prev", "remote-next", "remote-blackout"]) $(id).disabled = e.detail.status !== "live";
  });
  const press = (fn) => (e) => { e.currentTarget.blur(); fn(); };
  $("remote-prev").addEventListener("click", press(() => player.prev()));
  $("remote-next").addEventListener("click", press(() => player.next()));
  $("remote-blackout").addEventListener("click",
    press(() => player.set({ paused: player.state.paused ? false : "black" })));
  driver.bind();
  new TimerController(player, root).bind();
  socket.start();
  window.attentionTalk = { player, socket, driver };
}

start();
