// Section 5 of the device check: greedy decode tokens/s of Kiln on XLA against transformers' generate on
// the same device (bench/peers/gpu_hf_generate.py), from the same randomly initialized weights (the model
// directory Kiln writes) and the same prompt ids, at each --batch; both must produce the same tokens.
// As bench/generate.ts: decode tokens/s = batch · (new tokens - 1) / (seconds after the first new token),
// end-of-sequence stopping off, medians over --rounds (the peer repeats its own runs as many times). Kiln
// runs every batch size first, then the peer (one process) runs them all.
// Prints one JSON line per batch size.
//
//   node dist/bench/device/generation.js --platform gpu|cpu [--python python3] [--peers DIR]
//        [--preset smollm-135m] [--vocab 49152] [--batch 1,8] [--prompt-tokens 128] [--new-tokens 64] [--rounds 3]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as k from "../../src/index.js";
import { createCausalLM, isCausalConfig, presetConfig, presetNames, saveModel } from "../../src/models/index.js";
import { Generator } from "../../src/pipelines/generation/generator.js";
import { bucketFor } from "../../src/pipelines/generation/buckets.js";
import { median } from "../lib/timing.js";
import { checkPlatform, xlaDevice } from "./platform.js";

const round = (x: number, d: number) => Number(x.toFixed(d));

const { values: v } = parseArgs({
  options: {
    platform: { type: "string" },
    python: { type: "string", default: "python3" },
    peers: { type: "string", default: fileURLToPath(new URL("../../../bench/peers/", import.meta.url)) },
    preset: { type: "string", default: "smollm-135m" },
    vocab: { type: "string", default: "49152" },
    batch: { type: "string", default: "1,8" },
    "prompt-tokens": { type: "string", default: "128" },
    "new-tokens": { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
  },
});
const platform = checkPlatform(v.platform);
const { device } = xlaDevice(platform);
k.setDefaultDevice(device);
const vocab = Number(v.vocab),
  promptTokens = Number(v["prompt-tokens"]),
  newTokens = Number(v["new-tokens"]),
  rounds = Number(v.rounds);
const config = presetConfig(v.preset, { vocabSize: vocab, padId: 0, bosId: 1, eosId: 2 }, bucketFor(promptTokens + newTokens));
if (!isCausalConfig(config))
  throw new Error(`--preset ${v.preset} is not a causal LM preset; presets: ${presetNames("causal-lm").join(", ")}`);
const model = createCausalLM(config);
const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(0));
const dir = mkdtempSync(join(tmpdir(), "kiln-device-generate-"));
try {
  await saveModel(dir, model, params);
  const runs = [];
  for (const batch of v.batch.split(",").map(Number)) {
    const r = Math.imul(batch, 0x9e3779b1) >>> 0;
    const prompts = Array.from({ length: batch }, (_, b) =>
      Array.from({ length: promptTokens }, (_, i) => 3 + ((Math.imul(r ^ (b * promptTokens + i), 0x85ebca6b) >>> 0) % (vocab - 3))),
    );
    const promptsFile = join(dir, `prompts-${batch}.json`);
    writeFileSync(promptsFile, JSON.stringify(prompts));
    const gen = new Generator(model, params);
    const opts = { greedy: true, maxNewTokens: newTokens, stopAtEos: false };
    const warm = await gen.generate(prompts, opts);
    const kiln: { tps: number; prefill: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      const g = await gen.generate(prompts, opts);
      kiln.push({ tps: (batch * (newTokens - 1)) / g.decodeSeconds, prefill: g.prefillSeconds });
    }
    runs.push({ batch, promptsFile, gen, warm, kiln });
  }
  // One peer process for every batch size (the model loads once), after Kiln's runs: the two never share the device.
  const args = [join(v.peers, "gpu_hf_generate.py"), "--model", dir, "--prompts", runs.map((x) => x.promptsFile).join(",")];
  const p = spawnSync(
    v.python,
    [...args, "--new-tokens", String(newTokens), "--device", platform === "gpu" ? "cuda" : "cpu", "--repeats", String(rounds)],
    {
      encoding: "utf8",
      maxBuffer: 1 << 26,
      env: { ...process.env, HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1" },
    },
  );
  const peers = (p.stdout ?? "")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { torch: string; decode_tokens_per_second: number; prefill_seconds: number; token_ids: number[][] });
  if (p.status !== 0 || peers.length !== runs.length)
    throw new Error(`the transformers.generate peer failed (${p.error?.message ?? `exit ${p.status}`}):\n${(p.stderr ?? "").slice(-3000)}`);
  runs.forEach(({ batch, gen, warm, kiln }, n) => {
    const peer = peers[n]!;
    const tps = median(kiln.map((x) => x.tps));
    // Where the two sides part, if they do: the first (row, position) whose greedy token differs.
    let firstDifference: [number, number] | null = null;
    warm.tokens.forEach((row, b) => {
      const i = row.findIndex((t, j) => t !== peer.token_ids[b]?.[j]);
      if (i >= 0 && !firstDifference) firstDifference = [b, i];
    });
    console.log(
      JSON.stringify({
        bench: "generate",
        device: device.id,
        model: v.preset,
        vocab,
        batch,
        prompt_tokens: promptTokens,
        new_tokens: newTokens,
        decode_loop: gen.programs.opts.decodeLoop,
        steps_per_call: gen.programs.opts.stepsPerCall,
        decode_tokens_per_second: round(tps, 1),
        prefill_seconds: round(median(kiln.map((x) => x.prefill)), 4),
        compile_seconds: round(
          warm.compiled.reduce((s, c) => s + c.seconds, 0),
          2,
        ),
        rounds: kiln.map((x) => round(x.tps, 1)),
        peer_decode_tokens_per_second: round(peer.decode_tokens_per_second, 1),
        peer_prefill_seconds: round(peer.prefill_seconds, 4),
        peer_torch: peer.torch,
        ratio: round(tps / peer.decode_tokens_per_second, 2),
        same_tokens: firstDifference === null,
        first_difference: firstDifference,
      }),
    );
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
