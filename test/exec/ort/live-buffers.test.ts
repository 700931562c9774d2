// The CPU executor's count of live device buffers and of native tensor bytes (what `npm run bench --
// soak` watches): a buffer counts from creation until it is disposed, donated or collected, and a
// steady loop of donating steps keeps both flat.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";

const cpu = k.ortExecutor.devices()[0]!;

test("liveBuffers counts a buffer until it is disposed; nativeMemory its bytes, then pools them", async () => {
  const start = k.ortExecutor.liveBuffers();
  const memory = k.ortExecutor.nativeMemory();
  const a = k.array(new Float32Array(1000).fill(2), { device: cpu });
  const b = a.add(a);
  await b.ready();
  assert.equal(k.ortExecutor.liveBuffers(), start + 2);
  assert.ok(k.ortExecutor.nativeMemory().live >= memory.live + 8000, JSON.stringify(k.ortExecutor.nativeMemory()));
  assert.deepEqual(Array.from(((await b.data()) as Float32Array).slice(0, 2)), [4, 4]);
  a.dispose();
  b.dispose();
  assert.equal(k.ortExecutor.liveBuffers(), start);
  const after = k.ortExecutor.nativeMemory();
  assert.equal(after.live, memory.live);
  assert.ok(after.pooled >= memory.pooled + 8000, "released memory is kept for reuse");
});

test("a loop of donating steps keeps live buffers and native memory flat", async () => {
  const step = k.jit(
    (p: { w: k.Array; m: k.Array }, g: k.Array) => {
      const m = p.m.mul(0.9).add(g);
      return { w: p.w.sub(m.mul(0.01)), m };
    },
    { donateArgs: [0], name: "live_buffers_step" },
  );
  let p: { w: k.Array; m: k.Array } = { w: k.array(new Float32Array(512).fill(1), { device: cpu }), m: k.zeros([512]) };
  const g = k.array(new Float32Array(512).fill(1), { device: cpu });
  for (let i = 0; i < 3; i++) p = step(p, g);
  await p.w.ready();
  const live = k.ortExecutor.liveBuffers();
  const bytes = k.ortExecutor.nativeMemory().live;
  for (let i = 0; i < 30; i++) {
    p = step(p, g);
    await p.w.ready();
    assert.equal(k.ortExecutor.liveBuffers(), live, `step ${i}: live buffers`);
    assert.equal(k.ortExecutor.nativeMemory().live, bytes, `step ${i}: live bytes`);
  }
});
