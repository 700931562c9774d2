// Token-level generation from a causal language model: prompts of token ids in, new token ids out.
// The host loop around the compiled programs (programs.ts): lay the prompts out in their buckets, run
// prefill, then decode calls until every row has stopped (end of sequence) or has its tokens. Greedy
// decode calls are dispatched one ahead of the host reading their tokens, so the device never waits
// for the host; sampling reads each step's logits and draws the tokens on the host (sampling.ts).
import * as k from "../../core/index.js";
import type { CausalLanguageModel } from "../../models/causal-lm.js";
import type { Params } from "../../models/language-model.js";
import { GenerateInputError, planShapes, type ShapePlan } from "./buckets.js";
import { layOutPrompts } from "./prompt-batch.js";
import { GenerationPrograms, type CompileRecord, type DecodeLoop, type DecodeState } from "./programs.js";
import { checkGenerateOptions, checkGeneratorOptions } from "./generate-options.js";
import { OptionError } from "../../core/option-error.js";
import { itemSize } from "../../core/dtype.js";
import { SAMPLING_DEFAULTS, sampleToken, samplingProblem, samplingUniform, type SamplingOptions } from "./sampling.js";

/** Options of one generation: how many new tokens, greedy or sampled, stopping. */
export interface GenerateOptions extends SamplingOptions {
  /** New tokens per prompt at most (default 32). */
  maxNewTokens?: number;
  /** The most likely token every step (transformers' do_sample=False); default false: sampling. */
  greedy?: boolean;
  /** Seed of the sampling draws (default 0); the same seed gives the same tokens. Greedy draws nothing. */
  seed?: number;
  /** Stop a row at an end-of-sequence token (default true); false always gives maxNewTokens tokens. */
  stopAtEos?: boolean;
}

/** Options of Generator: decode steps per compiled call and how they loop. */
export interface GeneratorOptions {
  /** Greedy decode steps per compiled call (default 8). */
  stepsPerCall?: number;
  /**
   * The steps of a call as one loop (k.scan: the program holds one step, so it compiles as fast as a
   * single step) or unrolled. Default: unrolled on ONNX Runtime, where a Scan copies its carried cache
   * every iteration while unrolled steps write their rows once, in place (llama-small, batch 8 on 2 idle cores:
   * 2,709 against 2,210 decode tokens/s); the loop elsewhere (on XLA's CPU plugin it compiles about 3x
   * faster than unrolled steps; README, "Text generation").
   */
  decodeLoop?: DecodeLoop;
  /** Activation and cache dtype (default f32). */
  dtype?: k.DType;
  /**
   * Compile the weights into the programs as constants (default: where the executor asks for it and they
   * fit its limit, ONNX Runtime's 1 GiB: its MatMul and Gemm then pack them once, not on every call;
   * the projections of one input become one product. llama-small, alternating with the weights as inputs
   * on loaded shared cores, medians: batch 8 1,002 against 821 decode tokens/s, batch 1 310 against 274.
   * Each set of weights compiles its own programs, 1.5 s against 0.5 s) or pass them to every call (false).
   */
  constantWeights?: boolean;
}

/** Why a prompt stopped: an end-of-sequence token, or the token limit. */
export type FinishReason = "eos" | "length";

/** What Generator.generate returns: each prompt's new tokens and why it stopped. */
export interface TokenGeneration {
  /** The new token ids of each prompt (an end-of-sequence token that stopped it included, as transformers returns it). */
  tokens: number[][];
  /**
   * Every step's token of each row, as transformers' generate returns the new ids: rows that stopped
   * early hold padding (pad_token_id) after their end-of-sequence token, up to the last step run.
   */
  sequences: number[][];
  finishReasons: FinishReason[];
  /** The shapes the programs ran at. */
  plan: ShapePlan;
  /** Seconds from the call until the first new tokens were on the host, less any compile (in `compiled`). */
  prefillSeconds: number;
  /** Seconds from then until the last tokens were on the host, less any compile. */
  decodeSeconds: number;
  /** Decode steps run (each gives every row one token), counting steps past the end of a call's last needed one. */
  decodeSteps: number;
  /** Programs compiled by this call. */
  compiled: CompileRecord[];
}

/** Called once per new token of a row that has not stopped, in order. */
export type TokenCallback = (row: number, token: number) => void;

/** The end-of-sequence ids a config names (one id or a list), and the id finished rows emit. */
export function specialIds(config: CausalLanguageModel["config"]): { eosIds: number[]; padId: number } {
  const eos = config.eos_token_id;
  const eosIds = eos === null || eos === undefined ? [] : Array.isArray(eos) ? [...eos] : [eos];
  // As transformers: with no pad token, finished rows repeat the (first) end-of-sequence token.
  const padId = config.pad_token_id ?? eosIds[0] ?? 0;
  return { eosIds, padId };
}

/** The loop form the parameters' executor runs fastest: unrolled on ONNX Runtime, a loop elsewhere (see `GeneratorOptions.decodeLoop`). */
function defaultDecodeLoop(params: Params): DecodeLoop {
  const [first] = k.leaves(params);
  return first?.device.executor.abilities.loopForm ?? "scan";
}

/** Whether the parameters' executor takes weights as constants and these fit its limit (see `GeneratorOptions.constantWeights`). */
function weightsFitConstants(params: Params): boolean {
  const leaves = k.leaves<k.Array>(params);
  const limit = leaves[0]?.device.executor.abilities.constantWeightBytes ?? 0;
  const bytes = leaves.reduce((sum, a) => sum + a.size * itemSize(a.dtype), 0);
  return bytes > 0 && bytes <= limit;
}

/** Generates token ids from prompts of token ids with a causal LM: prefill, then compiled decode steps over a KV cache. */
export class Generator {
  readonly programs: GenerationPrograms;
  private readonly eosIds: number[];
  private readonly padId: number;

  constructor(
    readonly model: CausalLanguageModel,
    readonly params: Params,
    opts: GeneratorOptions = {},
  ) {
    checkGeneratorOptions("Generator", opts);
    const stepsPerCall = opts.stepsPerCall ?? 8;
    if (!(Number.isInteger(stepsPerCall) && stepsPerCall >= 1))
      throw new GenerateInputError(`generate: stepsPerCall must be an integer ≥ 1, got ${stepsPerCall}`);
    ({ eosIds: this.eosIds, padId: this.padId } = specialIds(model.config));
    this.programs = new GenerationPrograms(model, {
      stepsPerCall,
      decodeLoop: opts.decodeLoop ?? defaultDecodeLoop(params),
      eosIds: this.eosIds,
      padId: this.padId,
      dtype: opts.dtype ?? "f32",
      constantWeights: opts.constantWeights ?? weightsFitConstants(params),
    });
  }

  async generate(prompts: readonly (readonly number[])[], opts: GenerateOptions = {}, onToken?: TokenCallback): Promise<TokenGeneration> {
    checkGenerateOptions(opts);
    checkPrompts(prompts);
    const maxNewTokens = opts.maxNewTokens ?? 32;
    const greedy = opts.greedy ?? false;
    const seed = opts.seed ?? 0;
    const sampling: SamplingOptions = {
      temperature: opts.temperature ?? SAMPLING_DEFAULTS.temperature,
      topK: opts.topK ?? SAMPLING_DEFAULTS.topK,
      topP: opts.topP ?? SAMPLING_DEFAULTS.topP,
    };
    const problem = samplingProblem(sampling);
    if (problem) throw new GenerateInputError(`generate: ${problem}`);
    if (!greedy && !(Number.isSafeInteger(seed) && seed >= 0))
      throw new GenerateInputError(`generate: seed must be a non-negative integer, got ${seed}`);
    const vocab = this.model.config.vocab_size;
    prompts.forEach((p, i) =>
      p.forEach((id) => {
        if (!(Number.isInteger(id) && id >= 0 && id < vocab))
          throw new GenerateInputError(`generate: prompt ${i + 1} holds token id ${id}, outside the model's vocabulary of ${vocab}`);
      }),
    );
    const plan = planShapes(
      prompts.map((p) => p.length),
      maxNewTokens,
      this.model.maxLength,
    );
    const rows = new Rows(prompts.length, maxNewTokens, opts.stopAtEos ?? true, this.eosIds, onToken);
    const compiledBefore = this.programs.compiles.length;
    const t0 = performance.now();
    const batch = layOutPrompts(prompts, plan, this.padId);
    const input = (data: Int32Array, shape: number[]) => k.array(data, { shape, dtype: "i32" });
    const mode = greedy ? "greedy" : "sample";
    let { state, out } = this.programs.runPrefill(
      mode,
      this.params,
      input(batch.ids, [plan.batch, plan.promptLength]),
      input(batch.positions, [plan.batch, plan.promptLength]),
      input(batch.slotMask, [plan.batch, plan.capacity]),
      input(batch.nextPositions, [plan.batch]),
    );
    let decodeSteps = 0;
    let drawn = greedy ? Array.from((await out.data()) as Int32Array) : this.draw((await out.data()) as Float32Array, rows, sampling, seed);
    const compileSeconds = () => this.programs.compiles.slice(compiledBefore).reduce((sum, c) => sum + c.seconds, 0);
    const prefillCompile = compileSeconds();
    const prefillSeconds = (performance.now() - t0) / 1000 - prefillCompile;
    const t1 = performance.now();
    rows.accept([drawn]);
    if (greedy) {
      // Whether rows stop, and which already have (the first token was an end of sequence), come from the host.
      const finished = Int32Array.from({ length: plan.batch }, (_, r) => (r < rows.count && rows.finishReasons[r] === "eos" ? 1 : 0));
      state = { ...state, finished: input(finished, [plan.batch]), stopAtEos: k.full([], rows.stopAtEos ? 1 : 0, "i32") };
      decodeSteps = await this.decodeGreedy(state, rows);
    } else
      while (!rows.done) {
        state = { ...state, tokens: input(Int32Array.from(drawn), [plan.batch]) };
        ({ state, out } = this.programs.runDecode("sample", this.params, state));
        decodeSteps++;
        drawn = this.draw((await out.data()) as Float32Array, rows, sampling, seed);
        rows.accept([drawn]);
      }
    return {
      tokens: rows.tokens,
      sequences: rows.sequences,
      finishReasons: rows.finishReasons,
      plan,
      prefillSeconds,
      decodeSeconds: (performance.now() - t1) / 1000 - (compileSeconds() - prefillCompile),
      decodeSteps,
      compiled: this.programs.compiles.slice(compiledBefore),
    };
  }

  /** Greedy decode calls, each dispatched before the previous call's tokens are read. Returns the steps run. */
  private async decodeGreedy(state: DecodeState, rows: Rows): Promise<number> {
    const per = this.programs.opts.stepsPerCall;
    let calls = Math.ceil(rows.stepsLeft / per);
    if (rows.done || calls === 0) return 0;
    let steps = 0;
    let pending = this.programs.runDecode("greedy", this.params, state);
    calls--;
    for (;;) {
      steps += per;
      const ahead = calls > 0 ? this.programs.runDecode("greedy", this.params, pending.state) : undefined;
      calls--;
      const tokens = (await pending.out.data()) as Int32Array;
      const batch = tokens.length / per;
      rows.accept(Array.from({ length: per }, (_, i) => Array.from(tokens.subarray(i * batch, (i + 1) * batch))));
      if (!ahead || rows.done) return steps;
      pending = ahead;
    }
  }

  /**
   * One token per row from logits [batch, vocab]: the draw for (seed, row, step); stopped rows and rows
   * past the prompts get padding, as transformers feeds finished rows.
   */
  private draw(logits: Float32Array, rows: Rows, sampling: SamplingOptions, seed: number): number[] {
    const vocab = this.model.config.vocab_size;
    const batch = logits.length / vocab;
    return Array.from({ length: batch }, (_, r) =>
      r < rows.count && !rows.stopped(r)
        ? sampleToken(logits.subarray(r * vocab, (r + 1) * vocab), sampling, samplingUniform(seed, r, rows.generated(r)))
        : this.padId,
    );
  }
}

/** The host's view of each row: its new tokens, whether it has stopped, and why. */
class Rows {
  readonly tokens: number[][];
  /** Every row's token at every step run, padding after a row stopped included (transformers' layout). */
  readonly sequences: number[][];
  readonly finishReasons: FinishReason[];
  private steps = 0;

  constructor(
    readonly count: number,
    private readonly maxNewTokens: number,
    readonly stopAtEos: boolean,
    private readonly eosIds: readonly number[],
    private readonly onToken?: TokenCallback,
  ) {
    this.tokens = Array.from({ length: count }, () => []);
    this.sequences = Array.from({ length: count }, () => []);
    this.finishReasons = Array.from({ length: count }, () => "length" as FinishReason);
  }

  get done(): boolean {
    return this.steps >= this.maxNewTokens || this.finishReasons.every((f) => f === "eos");
  }

  /** Decode steps still needed after the tokens so far. */
  get stepsLeft(): number {
    return this.maxNewTokens - this.steps;
  }

  stopped(r: number): boolean {
    return this.finishReasons[r] === "eos" || this.steps >= this.maxNewTokens;
  }

  generated(r: number): number {
    return this.tokens[r]!.length;
  }

  /**
   * Steps of tokens, each [batch] (rows past `count` ignored). A stopped row's tokens (the padding the
   * programs emit for it) go to `sequences` only; steps past the last one asked for are dropped.
   */
  accept(steps: readonly (readonly number[])[]): void {
    for (const step of steps) {
      if (this.done) return;
      for (let r = 0; r < this.count; r++) {
        const token = step[r]!;
        this.sequences[r]!.push(token);
        if (this.finishReasons[r] === "eos") continue;
        this.tokens[r]!.push(token);
        this.onToken?.(r, token);
        if (this.stopAtEos && this.eosIds.includes(token)) this.finishReasons[r] = "eos";
      }
      this.steps++;
    }
  }
}

/** Prompts must be lists of token ids (text goes through the text-generation pipeline, which tokenizes it). */
function checkPrompts(prompts: unknown): void {
  const bad = Array.isArray(prompts) ? prompts.findIndex((p) => !Array.isArray(p) && !ArrayBuffer.isView(p)) : -1;
  if (Array.isArray(prompts) && bad < 0) return;
  throw new OptionError({
    where: "Generator.generate",
    option: bad < 0 ? "prompts" : `prompts[${bad}]`,
    value: bad < 0 ? prompts : (prompts as unknown[])[bad],
    why: "is not a list of token ids",
    fix: "Pass one list of token ids per prompt, e.g. [[1, 15, 27]]; for text, use TextGenerationPipeline.generate",
  });
}
