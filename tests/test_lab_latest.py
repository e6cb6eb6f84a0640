"""The lab's request scheduler (static/js/lab/api.js ``Latest``), run in node with a fake server whose
answers arrive when the test says: an old answer never overwrites a newer one; the illustrative
source aborts what it no longer needs; the model source keeps one request in flight and sends only
the newest of those that waited."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

API = Path(__file__).resolve().parents[1] / "static" / "js" / "lab" / "api.js"
NODE = shutil.which("node")

SCRIPT = """
const { Latest } = await import(process.argv[1]);
const tick = () => new Promise((r) => setTimeout(r, 0));
function fakeServer() {
  const calls = [];
  const post = (url, body, signal) => new Promise((resolve, reject) => {
    const call = { name: body.name, signal, answer: () => resolve({ ok: true, status: 200, body }) };
    signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })));
    calls.push(call);
  });
  return { calls, post };
}
const out = {};

// Illustrative: a newer request aborts the older; the older's late answer is dropped.
{
  const server = fakeServer(), shown = [];
  const latest = new Latest((a) => shown.push(a.body.name), { post: server.post });
  latest.ask({ url: "/a", body: { name: "one" } });
  latest.ask({ url: "/a", body: { name: "two" } });
  await tick();
  const [one, two] = server.calls;
  two.answer(); await tick();
  one.answer(); await tick();
  out.illustrative = { sent: server.calls.map((c) => c.name), aborted: one.signal.aborted, shown };
}

// Model: one in flight; of those asked meanwhile only the newest is sent, after it.
{
  const server = fakeServer(), shown = [];
  const latest = new Latest((a) => shown.push(a.body.name), { post: server.post });
  for (const name of ["m1", "m2", "m3"]) latest.ask({ url: "/m", body: { name }, serial: true });
  await tick();
  const inFlightFirst = server.calls.map((c) => c.name);
  server.calls[0].answer(); await tick(); await tick();
  server.calls[1].answer(); await tick();
  out.model = { inFlightFirst, sent: server.calls.map((c) => c.name), aborted: server.calls[0].signal.aborted, shown };
}

// After cancel(), nothing in flight is shown.
{
  const server = fakeServer(), shown = [];
  const latest = new Latest((a) => shown.push(a.body.name), { post: server.post });
  latest.ask({ url: "/m", body: { name: "x" }, serial: true });
  latest.cancel();
  server.calls[0].answer(); await tick();
  out.cancelled = shown;
}
console.log(JSON.stringify(out));
"""


def test_old_answers_never_win() -> None:
    assert NODE, "node is needed (apt-get install nodejs)"
    done = subprocess.run([NODE, "--input-type=module", "-e", SCRIPT, API.as_uri()], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["illustrative"] == {"sent": ["one", "two"], "aborted": True, "shown": ["two"]}
    assert out["model"] == {"inFlightFirst": ["m1"], "sent": ["m1", "m3"], "aborted": False, "shown": ["m3"]}
    assert out["cancelled"] == []
