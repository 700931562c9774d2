// A run writes a scatter's output over its donated data input when every other reader of that input
// runs before the scatter (a decode call's cache write): the output has the input's memory, and each
// call gives the reference interpreter's values. Not donated, read after the scatter, or also returned
// as it is: the output gets memory of its own and the input keeps its values.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, ortExecutor, type DeviceBuffer, type HostArray, type Program } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import type { OrtBuffer } from "../../../src/exec/ort/buffer.js";
import { rng } from "../../helpers/random.js";

const device = refExecutor.devices()[0];
const [b, h, slots, d, t] = [2, 3, 8, 4, 2];
const random = (r: () => number, n: number) => Float32Array.from({ length: n }, () => r() * 2 - 1);

/** rows [b, h, t, d] written at slots at … at+t-1 of cache [b, h, slots, d] (as writeCache), after a read of the cache. */
function writeAfterRead(cache: k.Array, rows: k.Array, at: k.Array): k.Array[] {
  const idx = k.iota([t], 0, "i32").add(at);
  const read = cache.sum(2, { keepDims: true }); // [b, h, 1, d]: the whole old cache
  const update = rows.sub(k.take(cache, idx, 2)).add(read.mul(0));
  return [k.scatterAdd(cache, idx, update, 2), read];
}

function lower(f: (...a: k.Array[]) => k.Array[], name: string): Program {
  return k.jit(f, { name, device }).lower(k.zeros([b, h, slots, d]), k.zeros([b, h, t, d]), k.zeros([], "i32"));
}

async function host(bufs: DeviceBuffer[]): Promise<HostArray[]> {
  return Promise.all(bufs.map((x) => x.toHost()));
}

test("a scatter over a donated input read only before it: written in place, the reference's values call after call", async () => {
  const program = lower(writeAfterRead, "write_after_read");
  assert.deepEqual(lowerGraph(program, 1).inPlace, [0, -1]);
  const ort = ortExecutor.compile(program, { donate: [true, false, false] });
  const ref = refExecutor.compile(program);
  const r = rng(1);
  let cache: HostArray = random(r, b * h * slots * d);
  let onOrt = ortExecutor.fromHost(cache, program.inputs[0]!.aval);
  for (const at of [0, 2, 5]) {
    const rows = random(r, b * h * t * d);
    const args = (ex: typeof ortExecutor | typeof refExecutor, c: DeviceBuffer) => [
      c,
      ex.fromHost(rows, program.inputs[1]!.aval),
      ex.fromHost(Int32Array.of(at), program.inputs[2]!.aval),
    ];
    const want = await host(ref.execute([args(refExecutor, refExecutor.fromHost(cache, program.inputs[0]!.aval))])[0]!);
    const ptr = (onOrt as OrtBuffer).allocation.ptr;
    const out = ort.execute([args(ortExecutor, onOrt)])[0]!;
    assert.equal((out[0] as OrtBuffer).allocation.ptr, ptr, `call at ${at}: the new cache is the donated one's memory`);
    const got = await host(out);
    assert.deepEqual(Array.from(got[0] as Float32Array), Array.from(want[0] as Float32Array), `call at ${at}: cache`);
    for (let i = 0; i < want[1]!.length; i++) assert.ok(Math.abs(Number(got[1]![i]) - Number(want[1]![i])) < 1e-5, `call at ${at}: read`);
    cache = want[0]!;
    onOrt = out[0]!;
  }
  ort.dispose();
});

test("not in place: an input not donated, read after the scatter, or also returned as it is", async () => {
  const r = rng(2);
  const cache = random(r, b * h * slots * d),
    rows = random(r, b * h * t * d);
  // Not donated: the input keeps its values.
  const program = lower(writeAfterRead, "write_after_read");
  const exe = ortExecutor.compile(program);
  const input = ortExecutor.fromHost(cache, program.inputs[0]!.aval);
  const out = exe.execute([
    [input, ortExecutor.fromHost(rows, program.inputs[1]!.aval), ortExecutor.fromHost(Int32Array.of(3), program.inputs[2]!.aval)],
  ])[0]!;
  assert.notEqual((out[0] as OrtBuffer).allocation.ptr, (input as OrtBuffer).allocation.ptr);
  assert.deepEqual(Array.from((await input.toHost()) as Float32Array), Array.from(cache));
  exe.dispose();
  // Read by a node that does not feed the scatter: it might run after it.
  const readAfter = lower((c, x, at) => [k.scatterAdd(c, k.iota([t], 0, "i32").add(at), x, 2), c.mul(2)], "read_after");
  assert.deepEqual(lowerGraph(readAfter, 1).inPlace, [-1, -1]);
  // Returned as it is besides the scatter.
  const returned = lower((c, x, at) => [k.scatterAdd(c, k.iota([t], 0, "i32").add(at), x, 2), c], "returned");
  assert.deepEqual(lowerGraph(returned, 1).inPlace, [-1]);
  const exe2 = ortExecutor.compile(returned, { donate: [true, false, false] });
  const [written, same] = await host(
    exe2.execute([
      [
        ortExecutor.fromHost(cache, returned.inputs[0]!.aval),
        ortExecutor.fromHost(rows, returned.inputs[1]!.aval),
        ortExecutor.fromHost(Int32Array.of(0), returned.inputs[2]!.aval),
      ],
    ])[0]!,
  );
  assert.deepEqual(Array.from(same as Float32Array), Array.from(cache), "the input returned as it is keeps its values");
  assert.notDeepEqual(Array.from(written as Float32Array), Array.from(cache));
  exe2.dispose();
});
