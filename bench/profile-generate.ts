// `npm run bench -- profile-generate [--preset llama-small] [--vocab 8192] [--batch 8] [--prompt-tokens 128]
// [--steps-per-call 8] [--threads 2] [--calls 5] [--top 12] [--weights constants|inputs]`: where one greedy decode call spends its time.
// The decode program `bench generate` runs is lowered to its ONNX graph and run in onnxruntime-node's
// InferenceSession with ONNX Runtime's profiler on; node events of the timed calls are summed by op
// type and by node, printed as JSON lines with "bench": "profile-generate", largest first, each op type
// also less the profiler's per-node floor (a Reshape's time).
import * as k from "../src/index.js";
import { presetConfig, createCausalLM, type CausalConfig } from "../src/models/index.js";
import { Generator } from "../src/pipelines/generation/generator.js";
import { bucketFor, planShapes } from "../src/pipelines/generation/buckets.js";
import { layOutPrompts } from "../src/pipelines/generation/prompt-batch.js";
import { benchExecutor, lowered, tensor } from "./lib/ort-peer.js";
import { flag, profileSession } from "./lib/ort-profile.js";

export async function run(args: string[]): Promise<void> {
  const preset = flag(args, "preset", "llama-small");
  const vocab = Number(flag(args, "vocab", "8192")),
    batch = Number(flag(args, "batch", "8")),
    promptTokens = Number(flag(args, "prompt-tokens", "128")),
    stepsPerCall = Number(flag(args, "steps-per-call", "8")),
    threads = Number(flag(args, "threads", "2")),
    calls = Number(flag(args, "calls", "5")),
    top = Number(flag(args, "top", "12"));
  const executor = benchExecutor(threads);
  const device = executor.devices()[0]!;
  const maxLength = bucketFor(promptTokens + 64);
  const config = presetConfig(preset, { vocabSize: vocab, padId: 0, bosId: 1, eosId: 2 }, maxLength) as CausalConfig;
  const model = createCausalLM(config);
  const params = k.jit((key: k.Array) => model.init(key), { device })(k.randomKey(0));
  const weights = flag(args, "weights", "default");
  const gen = new Generator(model, params, {
    stepsPerCall,
    ...(weights === "default" ? {} : { constantWeights: weights === "constants" }),
  });
  const prompts = Array.from({ length: batch }, (_, b) =>
    Array.from({ length: promptTokens }, (_, i) => 3 + ((b * 131 + i * 7) % (vocab - 3))),
  );
  const plan = planShapes(
    prompts.map((p) => p.length),
    64,
    model.maxLength,
  );
  const laid = layOutPrompts(prompts, plan, 0);
  const input = (data: Int32Array, shape: number[]) => k.array(data, { shape, dtype: "i32", device });
  const { state } = gen.programs.runPrefill(
    "greedy",
    params,
    input(laid.ids, [plan.batch, plan.promptLength]),
    input(laid.positions, [plan.batch, plan.promptLength]),
    input(laid.slotMask, [plan.batch, plan.capacity]),
    input(laid.nextPositions, [plan.batch]),
  );
  const program = gen.programs.lowerDecode("greedy", params, state);
  const lo = lowered(program, executor);
  const leaves = k.leaves<k.Array>((gen.programs.opts.constantWeights ? state : [params, state]) as unknown as k.PyTree);
  const feeds = Object.fromEntries(leaves.map((a, i) => [lo.inputNames[i]!, tensor(a.dtype, a.dataSync(), a.shape)]));

  // The first call (allocations, first-touch) is left out of the sums.
  const profile = await profileSession(lo.model, feeds, { threads, runs: calls, prefix: "decode" });
  const total = profile.totalUs;
  const ms = (us: number) => Number((us / 1000 / calls).toFixed(2));
  const wallMs = profile.wallMs;
  const out = (o: object) => console.log(JSON.stringify({ bench: "profile-generate", ...o }));
  out({
    preset,
    batch,
    constant_weights: gen.programs.opts.constantWeights,
    steps_per_call: stepsPerCall,
    threads,
    onnx_nodes: lo.nodeCount,
    call_ms: Number(wallMs.toFixed(1)),
    kernel_ms_per_call: ms(total),
  });
  // The profiler's own cost lands in every node's kernel time (a chain of 500 Negs of [8, 256] measured
  // 6.7 µs a node profiled, 0.4 µs not): a Reshape, which aliases its input, shows that floor, and
  // `ms_over_floor` is what an op type costs above it (what fewer nodes of it would not save).
  const reshapes = profile.sumBy("op", Infinity).find(([op]) => op === "Reshape");
  const floorUs = reshapes ? reshapes[1] / reshapes[2] : 0;
  out({ profiler_floor_us_per_node: Number(floorUs.toFixed(2)) });
  for (const [opType, us, n] of profile.sumBy("op", top))
    out({
      op_type: opType,
      ms_per_call: ms(us),
      ms_over_floor: ms(Math.max(0, us - n * floorUs)),
      nodes: n / calls,
      share: Number((us / total).toFixed(3)),
    });
  for (const [node, us] of profile.sumBy("node", top)) out({ node, ms_per_call: ms(us), share: Number((us / total).toFixed(3)) });
}
