// `npm run bench -- generate`: greedy decode tokens/s of a randomly initialized causal LM from a
// 128-token prompt, at batch 1 and 8, against transformers' generate on the CPU (eager PyTorch, KV
// cache, the same model directory and prompt ids: bench/peers/hf_generate_cpu.py). Kiln and the peer
// take turns, round after round, so both see the same load; figures are medians over the rounds.
// End-of-sequence stopping is off on both sides, so every run makes --new-tokens tokens; decode
// tokens/s = batch · (new tokens - 1) / (seconds after the first new token).
//
//   npm run bench -- generate [--preset llama-small] [--vocab 8192] [--batch 1,8] [--prompt-tokens 128]
//                             [--new-tokens 64] [--rounds 3] [--steps-per-call 8] [--decode-loop scan|unrolled]
//                             (the loop defaults to the Generator's choice for the executor)
//                             [--weights constants|inputs] (default: the Generator's choice)
//                             [--threads 2] [--no-peer]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as k from "../src/index.js";
import { presetConfig, createCausalLM, saveModel, type CausalConfig } from "../src/models/index.js";
import { Generator } from "../src/pipelines/generation/generator.js";
import { bucketFor } from "../src/pipelines/generation/buckets.js";
import type { DecodeLoop } from "../src/pipelines/generation/programs.js";
import { median } from "./lib/timing.js";
import { repoRoot, venvPython } from "./lib/python-peer.js";

interface PeerResult {
  torch: string;
  prefill_seconds: number;
  decode_tokens_per_second: number;
  token_ids: number[][];
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      preset: { type: "string", default: "llama-small" },
      vocab: { type: "string", default: "8192" },
      batch: { type: "string", default: "1,8" },
      "prompt-tokens": { type: "string", default: "128" },
      "new-tokens": { type: "string", default: "64" },
      rounds: { type: "string", default: "3" },
      "steps-per-call": { type: "string", default: "8" },
      "decode-loop": { type: "string" },
      threads: { type: "string", default: "2" },
      weights: { type: "string" },
      "no-peer": { type: "boolean", default: false },
    },
  });
  const vocab = Number(values.vocab),
    promptTokens = Number(values["prompt-tokens"]),
    newTokens = Number(values["new-tokens"]),
    rounds = Number(values.rounds);
  // Room for the prompt and every new token: the preset's positions are raised to the bucket that holds
  // them (rotary or learned, the weights that exist do not change).
  const maxLength = bucketFor(promptTokens + newTokens);
  const config = presetConfig(values.preset, { vocabSize: vocab, padId: 0, bosId: 1, eosId: 2 }, maxLength) as CausalConfig;
  const model = createCausalLM(config);
  const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(0));
  const dir = mkdtempSync(join(tmpdir(), "kiln-bench-generate-"));
  try {
    await saveModel(dir, model, params);
    for (const batch of values.batch.split(",").map(Number)) {
      const r = Math.imul(batch, 0x9e3779b1) >>> 0;
      const prompts = Array.from({ length: batch }, (_, b) =>
        Array.from({ length: promptTokens }, (_, i) => 3 + ((Math.imul(r ^ (b * promptTokens + i), 0x85ebca6b) >>> 0) % (vocab - 3))),
      );
      const promptsFile = join(dir, `prompts-${batch}.json`);
      writeFileSync(promptsFile, JSON.stringify(prompts));
      const gen = new Generator(model, params, {
        stepsPerCall: Number(values["steps-per-call"]),
        ...(values["decode-loop"] ? { decodeLoop: values["decode-loop"] as DecodeLoop } : {}),
        ...(values.weights ? { constantWeights: values.weights === "constants" } : {}),
      });
      const opts = { greedy: true, maxNewTokens: newTokens, stopAtEos: false };
      const warm = await gen.generate(prompts, opts);
      const kiln: { tps: number; prefill: number }[] = [];
      const peer: PeerResult[] = [];
      for (let i = 0; i < rounds; i++) {
        const g = await gen.generate(prompts, opts);
        kiln.push({ tps: (batch * (newTokens - 1)) / g.decodeSeconds, prefill: g.prefillSeconds });
        if (!values["no-peer"]) peer.push(runPeer(dir, promptsFile, newTokens, Number(values.threads)));
      }
      const tps = median(kiln.map((x) => x.tps));
      const peerTps = peer.length ? median(peer.map((p) => p.decode_tokens_per_second)) : undefined;
      console.log(
        JSON.stringify({
          bench: "generate",
          model: values.preset,
          vocab,
          batch,
          prompt_tokens: promptTokens,
          new_tokens: newTokens,
          steps_per_call: Number(values["steps-per-call"]),
          decode_loop: gen.programs.opts.decodeLoop,
          constant_weights: gen.programs.opts.constantWeights,
          decode_tokens_per_second: round(tps, 1),
          prefill_seconds: round(median(kiln.map((x) => x.prefill)), 3),
          compile_seconds: round(
            warm.compiled.reduce((s, c) => s + c.seconds, 0),
            2,
          ),
          rounds: kiln.map((x) => round(x.tps, 1)),
          peer: peer.length
            ? {
                name: "transformers.generate",
                torch: peer[0]!.torch,
                threads: Number(values.threads),
                decode_tokens_per_second: round(peerTps!, 1),
                prefill_seconds: round(median(peer.map((p) => p.prefill_seconds)), 3),
                rounds: peer.map((p) => round(p.decode_tokens_per_second, 1)),
              }
            : null,
          ratio: peerTps ? round(tps / peerTps, 2) : null,
          // Both sides decode greedily from the same weights: their tokens should agree.
          same_tokens: peer.length ? JSON.stringify(peer[0]!.token_ids) === JSON.stringify(warm.tokens) : null,
        }),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runPeer(dir: string, promptsFile: string, newTokens: number, threads: number): PeerResult {
  const script = join(repoRoot, "bench", "peers", "hf_generate_cpu.py");
  const args = [
    script,
    "--model",
    dir,
    "--prompts",
    promptsFile,
    "--new-tokens",
    String(newTokens),
    "--threads",
    String(threads),
    "--repeats",
    "1",
  ];
  const r = spawnSync(venvPython(), args, {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    env: { ...process.env, HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1" },
  });
  if (r.status !== 0)
    throw new Error(`bench generate: the peer failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr.slice(-3000)}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as PeerResult;
}
