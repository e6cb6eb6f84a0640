// The live room's link between one presenter's windows (same browser): the speaker view tells the
// talk window which room is open (its code and join link; never the secret) and asks it to show or
// hide the QR code, and the talk window answers whether it now shows it. Like the step sync,
// nothing heard here is trusted: messages are checked.

export const roomChannelName = (deckId) => `attention-talk-room:${deckId}`;
const CODE = /^[0-9A-Z]{9}$/;

export function openRoomChannel(deckId) {
  return typeof BroadcastChannel === "function" ? new BroadcastChannel(roomChannelName(deckId)) : null;
}

/** A well-formed message of the room channel, or null. */
export function checkRoomMessage(msg) {
  if (msg === null || typeof msg !== "object") return null;
  if (msg.type === "ask" || msg.type === "qr") return { type: msg.type };
  if (msg.type === "qr-shown") return typeof msg.shown === "boolean" ? { type: msg.type, shown: msg.shown } : null;
  if (msg.type !== "room" || !CODE.test(msg.code) || typeof msg.spoken !== "string") return null;
  if (typeof msg.join !== "string" || !/^https?:\/\//.test(msg.join) || msg.join.length > 300) return null;
  return { type: "room", code: msg.code, spoken: msg.spoken.slice(0, 20), join: msg.join };
}
