// An overlay that holds the page while it is open (the overview, the help): everything else in
// its host becomes inert (no Tab stop, no click, hidden from screen readers; the live announcer
// excepted, so steps are still spoken), and the focus comes back where it was when it closes.

/** Make `host`'s other children inert; returns release(), which undoes it and restores the focus. */
export function holdPage(host, overlay) {
  const before = document.activeElement;
  const held = [...host.children].filter((el) => el !== overlay && !el.contains(overlay) && el.id !== "announcer" && !el.inert);
  for (const el of held) el.inert = true;
  return () => {
    for (const el of held) el.inert = false;
    if (before && before !== document.body && before.isConnected && !before.closest("[inert]")) {
      before.focus({ preventScroll: true });
    } else if (document.activeElement === document.body || overlay.contains(document.activeElement)) {
      host.focus?.({ preventScroll: true });
    }
  };
}
