// Generation with the KV cache, end to end on tiny Llama and GPT-2 models (ONNX Runtime): greedy tokens
// equal the argmax of whole forwards re-run on the growing sequence (the reference interpreter), for
// one decode step per call and several (unrolled and as a loop); a batch of prompts of different
// lengths gives each prompt's tokens alone; prompts in a bucket compiled before compile nothing new;
// an end-of-sequence token stops its row only; sampling's seed fixes its tokens; top-k 1 is greedy.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { presetConfig, createCausalLM, type CausalConfig, type CausalLanguageModel, type Params } from "../../src/models/index.js";
import { Generator } from "../../src/pipelines/generation/generator.js";
import { rng } from "../helpers/random.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";

const VOCAB = 40;
const IDS = { vocabSize: VOCAB, padId: 0, bosId: 1, eosId: 2 };

/** A tiny preset with weights large enough that no two logits come close to a tie. */
function tinyModel(preset: "llama-tiny" | "gpt2-tiny", over: Partial<CausalConfig> = {}): CausalLanguageModel {
  return createCausalLM({ ...presetConfig(preset, IDS), initializer_range: 0.5, ...over } as CausalConfig);
}

const params: Record<string, Params> = {};
const MODELS = ["llama-tiny", "gpt2-tiny"] as const;
for (const name of MODELS) params[name] = k.jit((key: k.Array) => tinyModel(name).init(key))(k.randomKey(3));

function prompt(seed: number, n: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => 3 + Math.floor(r() * (VOCAB - 3)));
}

/**
 * Greedy tokens from whole forwards: the sequence so far, right-padded to one length (causal
 * attention: the padding after a position cannot change it), argmax at its last token, appended.
 */
function referenceGreedy(model: CausalLanguageModel, p: Params, ids: readonly number[], n: number): number[] {
  const width = ids.length + n;
  const forward = k.jit((pp: Params, x: k.Array, mask: k.Array) => model.lmHead(pp, model.hidden(pp, x, mask)).argmax(-1), {
    device: "ref:0",
    name: "reference_greedy",
  });
  const seq = [...ids];
  for (let i = 0; i < n; i++) {
    const x = Int32Array.from({ length: width }, (_, j) => seq[j] ?? 0);
    const mask = Int32Array.from({ length: width }, (_, j) => (j < seq.length ? 1 : 0));
    const best = forward(p, k.array(x, { shape: [1, width], dtype: "i32" }), k.array(mask, { shape: [1, width], dtype: "i32" }));
    seq.push((best.dataSync() as Int32Array)[seq.length - 1]!);
  }
  return seq.slice(ids.length);
}

for (const name of MODELS) {
  test(`${name}: greedy tokens through the cache equal whole forwards re-run on the growing sequence`, async () => {
    const model = tinyModel(name);
    const p = prompt(1, 7);
    const want = referenceGreedy(model, params[name]!, p, 12);
    for (const [stepsPerCall, decodeLoop] of [
      [1, "unrolled"],
      [4, "unrolled"],
      [5, "scan"],
    ] as const) {
      const gen = new Generator(model, params[name]!, { stepsPerCall, decodeLoop });
      const r = await gen.generate([p], { greedy: true, maxNewTokens: 12, stopAtEos: false });
      assert.deepEqual(r.tokens, [want], `${stepsPerCall} steps per call, ${decodeLoop}`);
      assert.deepEqual(r.finishReasons, ["length"]);
      assert.equal(r.decodeSteps, Math.ceil(11 / stepsPerCall) * stepsPerCall);
    }
  });

  test(`${name}: a batch of prompts of different lengths (left-padded) gives each prompt's tokens alone`, async () => {
    const model = tinyModel(name);
    const gen = new Generator(model, params[name]!, { stepsPerCall: 4 });
    const prompts = [prompt(2, 3), prompt(3, 11), prompt(4, 6)];
    const batch = await gen.generate(prompts, { greedy: true, maxNewTokens: 10, stopAtEos: false });
    assert.deepEqual(batch.plan, { batch: 4, promptLength: 16, capacity: 32 });
    for (const [i, p] of prompts.entries()) {
      const alone = await gen.generate([p], { greedy: true, maxNewTokens: 10, stopAtEos: false });
      assert.deepEqual(batch.tokens[i], alone.tokens[0], `prompt ${i + 1}`);
    }
    assert.deepEqual(batch.tokens[1], referenceGreedy(model, params[name]!, prompts[1]!, 10));
  });
}

test("compiles are counted per bucket: the same buckets compile nothing, a new prompt or cache bucket compiles its program", async () => {
  const gen = new Generator(tinyModel("llama-tiny"), params["llama-tiny"]!, { stepsPerCall: 4 });
  const opts = { greedy: true, maxNewTokens: 20, stopAtEos: false };
  const first = await gen.generate([prompt(5, 5), prompt(6, 9)], opts);
  assert.deepEqual(
    first.compiled.map((c) => c.program),
    ["prefill 16", "decode ×4"],
  );
  assert.ok(first.compiled.every((c) => c.seconds > 0));
  const same = await gen.generate([prompt(7, 12), prompt(8, 2)], opts);
  assert.deepEqual(same.compiled, [], "two other prompts in the same buckets");
  // The prompt bucket 16 plus 20 or 28 new tokens: both fit the cache bucket of 48 slots.
  const more = await gen.generate([prompt(7, 12), prompt(8, 2)], { ...opts, maxNewTokens: 28 });
  assert.deepEqual(more.compiled, [], "more new tokens in the same cache bucket");
  // The prompt bucket 32 plus 20 new tokens: a prefill of 32 tokens and a cache of 64 slots.
  const longer = await gen.generate([prompt(9, 20), prompt(10, 4)], opts);
  assert.deepEqual(
    longer.compiled.map((c) => c.program),
    ["prefill 32", "decode ×4"],
  );
  assert.equal(gen.programs.compiles.length, 4);
  // A prompt of 40 tokens: a prefill of 64 and a cache of 96 slots.
  const bigger = await gen.generate([prompt(11, 40), prompt(12, 4)], opts);
  assert.deepEqual(
    bigger.compiled.map((c) => c.program),
    ["prefill 64", "decode ×4"],
  );
  assert.deepEqual(bigger.plan, { batch: 2, promptLength: 64, capacity: 96 });
});

test("an end-of-sequence token stops its row (the token included, nothing after it); the other rows go on", async () => {
  const plain = tinyModel("llama-tiny");
  const prompts = [prompt(13, 5), prompt(14, 8)];
  const free = await new Generator(plain, params["llama-tiny"]!, { stepsPerCall: 3 }).generate(prompts, {
    greedy: true,
    maxNewTokens: 12,
    stopAtEos: false,
  });
  // Make the 4th token of the first row the end of sequence, unless the second row makes it earlier.
  const eos = free.tokens[0]![3]!;
  const at = (row: number) => free.tokens[row]!.indexOf(eos);
  const model = tinyModel("llama-tiny", { eos_token_id: eos });
  for (const greedy of [true, false]) {
    const gen = new Generator(model, params["llama-tiny"]!, { stepsPerCall: 3 });
    // Sampling with top-k 1 takes the most likely token too, through the host's draw.
    const r = await gen.generate(prompts, { greedy, ...(greedy ? {} : { topK: 1 }), maxNewTokens: 12 });
    for (const row of [0, 1]) {
      const stop = at(row);
      assert.deepEqual(r.tokens[row], stop < 0 ? free.tokens[row] : free.tokens[row]!.slice(0, stop + 1), `row ${row}, greedy ${greedy}`);
      assert.equal(r.finishReasons[row], stop < 0 ? "length" : "eos");
    }
    // transformers' layout: a stopped row emits padding (id 0) until the last row stops.
    const steps = Math.max(...r.tokens.map((t) => t.length));
    assert.deepEqual(
      r.sequences,
      r.tokens.map((t) => [...t, ...new Array<number>(steps - t.length).fill(0)]),
    );
    assert.ok(r.tokens[0]!.length < steps, "the first row stopped while the second went on");
    const off = await gen.generate(prompts, { greedy, ...(greedy ? {} : { topK: 1 }), maxNewTokens: 12, stopAtEos: false });
    assert.deepEqual(off.tokens, free.tokens, "stopAtEos false runs every row to the end");
  }
});

test("sampling: the same seed gives the same tokens, another seed others; top-k 1 equals greedy", async () => {
  const gen = new Generator(tinyModel("gpt2-tiny", { initializer_range: 0.1 }), params["gpt2-tiny"]!);
  const prompts = [prompt(15, 4), prompt(16, 9)];
  const sample = (seed: number) => gen.generate(prompts, { seed, maxNewTokens: 16, stopAtEos: false, topK: 0, temperature: 1.5 });
  const a = await sample(1),
    b = await sample(1),
    c = await sample(2);
  assert.deepEqual(a.tokens, b.tokens);
  assert.notDeepEqual(a.tokens, c.tokens);
  const greedy = await gen.generate(prompts, { greedy: true, maxNewTokens: 16, stopAtEos: false });
  const top1 = await gen.generate(prompts, { seed: 9, topK: 1, maxNewTokens: 16, stopAtEos: false });
  assert.deepEqual(top1.tokens, greedy.tokens);
  assert.notDeepEqual(a.tokens, greedy.tokens);
});

test("bad options and prompts are refused before anything runs", async () => {
  const gen = new Generator(tinyModel("llama-tiny"), params["llama-tiny"]!);
  await assert.rejects(gen.generate([[3, 4]], { temperature: 0 }), /generate: temperature = 0 must be > 0/);
  await assert.rejects(gen.generate([[3, VOCAB]]), /prompt 1 holds token id 40, outside the model's vocabulary of 40/);
  await assert.rejects(gen.generate([prompt(1, 60)], { maxNewTokens: 8 }), /60 tokens; with 8 new tokens that is 68 positions.*64/);
  await assert.rejects(gen.generate([[3]], { seed: -1 }), /seed = -1 must be a non-negative integer/);
  assert.equal(gen.programs.compiles.length, 0);
});

test(
  "the same programs on XLA's CPU plugin give ONNX Runtime's tokens (decode as a loop and unrolled, greedy and top-k 1)",
  { skip: xlaCpuSkip },
  async () => {
    const model = tinyModel("llama-tiny");
    const prompts = [prompt(17, 4), prompt(18, 9)];
    const opts = { greedy: true, maxNewTokens: 12, stopAtEos: false };
    const onOrt = new Generator(model, params["llama-tiny"]!, { stepsPerCall: 4 });
    // Unless told, ONNX Runtime runs the steps unrolled (its Scan copies the carried cache every step), XLA as a loop.
    assert.equal(onOrt.programs.opts.decodeLoop, "unrolled");
    const want = (await onOrt.generate(prompts, opts)).tokens;
    const [device] = k.selectDevices({ accelerator: "cpu", executor: "xla", devices: 1, pjrtPlugin: xlaCpuPluginPath() });
    const before = k.getDefaultDevice();
    k.setDefaultDevice(device!);
    try {
      const onXla = k.treeMap((a: k.Array) => k.array(a.dataSync(), { shape: a.shape, dtype: a.dtype, device }), params["llama-tiny"]!);
      assert.equal(new Generator(model, onXla).programs.opts.decodeLoop, "scan");
      for (const decodeLoop of ["scan", "unrolled"] as const) {
        const gen = new Generator(model, onXla, { stepsPerCall: 4, decodeLoop });
        assert.deepEqual((await gen.generate(prompts, opts)).tokens, want, decodeLoop);
        assert.deepEqual((await gen.generate(prompts, { ...opts, greedy: false, topK: 1 })).tokens, want, `${decodeLoop}, top-k 1`);
      }
    } finally {
      k.setDefaultDevice(before);
    }
  },
);
