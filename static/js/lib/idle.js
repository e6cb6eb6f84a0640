// Work that can wait for the browser's idle time (after the frame is painted, when nothing more
// urgent is queued): requestIdleCallback where there is one, else a short timer.

/** Run `fn` in idle time, or after `options.timeout` ms at the latest; returns a handle for cancelIdle. */
export function idle(fn, options = {}) {
  return window.requestIdleCallback ? window.requestIdleCallback(fn, options) : setTimeout(fn, 50);
}

/** Forget work asked for with idle(). */
export function cancelIdle(handle) {
  if (window.cancelIdleCallback) window.cancelIdleCallback(handle);
  else clearTimeout(handle);
}
