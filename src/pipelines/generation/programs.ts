// The compiled programs of generation: prefill (the prompts through the model into a fresh key/value
// cache, and the first new token) and decode (one new token per row, several steps per call). Their
// shapes come from the buckets alone, so prompts of other lengths in the same buckets run the same
// programs. Between calls the cache and the decode state stay on the device, donated from one call to
// the next; the host reads back only the new token ids (greedy) or the last position's logits (sampling).
import * as k from "../../core/index.js";
import type { CausalLanguageModel, KvCache } from "../../models/causal-lm.js";
import type { Params } from "../../models/language-model.js";
import { writeCache } from "../../nn/causal-attention.js";

/** What decode carries from one step to the next, all on the device. */
export interface DecodeState {
  cache: KvCache;
  /** The token each row feeds next [batch] (i32). */
  tokens: k.Array;
  /** Its position [batch] (i32). */
  positions: k.Array;
  /** Cache slots each row attends to [batch, capacity] (i32 0/1). */
  slotMask: k.Array;
  /** The slot the fed tokens are written to (i32 scalar, the same for every row: prompts are left-padded). */
  start: k.Array;
  /** Rows that have emitted an end-of-sequence token [batch] (i32 0/1); they emit padding from then on. */
  finished: k.Array;
  /** 1: rows stop at an end-of-sequence token; 0: they run to the end (i32 scalar, an input: no recompile). */
  stopAtEos: k.Array;
}

/** How the K decode steps of one call are laid out in the program. */
export type DecodeLoop = "unrolled" | "scan";

export interface ProgramOptions {
  /** Decode steps per compiled call (greedy); sampling always takes one (the host picks each token). */
  stepsPerCall: number;
  decodeLoop: DecodeLoop;
  /** Stop rows at these ids (none: run every row to the end). */
  eosIds: readonly number[];
  padId: number;
  /** Activation and cache dtype. */
  dtype: k.DType;
  /**
   * The weights compiled into the programs as constants (one compile per set of weights; the executor
   * may pack them once) instead of passed to every call.
   */
  constantWeights: boolean;
}

/** One compile, for the report: which program, how long. */
export interface CompileRecord {
  program: string;
  seconds: number;
}

type Mode = "greedy" | "sample";

type PrefillFn = (ids: k.Array, positions: k.Array, slotMask: k.Array, next: k.Array) => { state: DecodeState; out: k.Array };
type DecodeFn = (state: DecodeState) => { state: DecodeState; out: k.Array };

/** The programs of one set of weights, callable without them (they are inputs or constants of the program). */
interface BoundPrograms {
  prefill: Record<Mode, { jitted: k.Jitted<any>; call: PrefillFn }>;
  decode: Record<Mode, { jitted: k.Jitted<any>; call: DecodeFn }>;
}

export class GenerationPrograms {
  /** Every compile so far, in order. */
  readonly compiles: CompileRecord[] = [];
  private readonly prefillFns;
  private readonly decodeFns;
  /** Programs with the weights compiled in as constants, by weights. */
  private readonly withConstants = new WeakMap<Params, BoundPrograms>();

  constructor(
    readonly model: CausalLanguageModel,
    readonly opts: ProgramOptions,
  ) {
    const prefill = (mode: Mode) =>
      k.jit(
        (p: Params, ids: k.Array, positions: k.Array, slotMask: k.Array, next: k.Array) =>
          this.prefill(mode, p, ids, positions, slotMask, next),
        {
          name: `generate_prefill_${mode}`,
        },
      );
    const decode = (mode: Mode) =>
      k.jit((p: Params, state: DecodeState) => this.decode(mode, p, state), {
        name: `generate_decode_${mode}`,
        donateArgs: [1],
      });
    this.prefillFns = { greedy: prefill("greedy"), sample: prefill("sample") };
    this.decodeFns = { greedy: decode("greedy"), sample: decode("sample") };
  }

  /**
   * The programs for `params`: with `constantWeights`, ones that close over them (traced as constants,
   * compiled once per set of weights); otherwise the shared programs, given them as inputs.
   */
  private bound(params: Params): BoundPrograms {
    if (!this.opts.constantWeights) {
      const prefill = (mode: Mode) => {
        const jitted = this.prefillFns[mode];
        return { jitted, call: ((...a) => jitted(params, ...a)) as PrefillFn };
      };
      const decode = (mode: Mode) => {
        const jitted = this.decodeFns[mode];
        return { jitted, call: ((state) => jitted(params, state)) as DecodeFn };
      };
      return {
        prefill: { greedy: prefill("greedy"), sample: prefill("sample") },
        decode: { greedy: decode("greedy"), sample: decode("sample") },
      };
    }
    let b = this.withConstants.get(params);
    if (!b) {
      const prefill = (mode: Mode) => {
        const jitted = k.jit(
          (ids: k.Array, positions: k.Array, slotMask: k.Array, next: k.Array) =>
            this.prefill(mode, params, ids, positions, slotMask, next),
          { name: `generate_prefill_${mode}` },
        );
        return { jitted, call: jitted as PrefillFn };
      };
      const decode = (mode: Mode) => {
        const jitted = k.jit((state: DecodeState) => this.decode(mode, params, state), {
          name: `generate_decode_${mode}`,
          donateArgs: [0],
        });
        return { jitted, call: jitted as DecodeFn };
      };
      b = {
        prefill: { greedy: prefill("greedy"), sample: prefill("sample") },
        decode: { greedy: decode("greedy"), sample: decode("sample") },
      };
      this.withConstants.set(params, b);
    }
    return b;
  }

  /**
   * Runs prefill: returns the decode state (its `tokens` already the first new token when greedy) and
   * what the host reads: the first new tokens [batch] (greedy) or the last position's logits [batch, vocab].
   */
  runPrefill(
    mode: Mode,
    params: Params,
    ids: k.Array,
    positions: k.Array,
    slotMask: k.Array,
    next: k.Array,
  ): { state: DecodeState; out: k.Array } {
    const fn = this.bound(params).prefill[mode];
    return this.counted(fn.jitted, `prefill ${ids.shape[1]}`, () => fn.call(ids, positions, slotMask, next));
  }

  /** Runs one decode call: greedy gives [stepsPerCall, batch] token ids, sampling [batch, vocab] logits. */
  runDecode(mode: Mode, params: Params, state: DecodeState): { state: DecodeState; out: k.Array } {
    const fn = this.bound(params).decode[mode];
    const label = mode === "greedy" && this.opts.stepsPerCall > 1 ? `decode ×${this.opts.stepsPerCall}` : "decode";
    return this.counted(fn.jitted, label, () => fn.call(state));
  }

  /** The decode program a call with these arguments runs (for profiling its lowered graph). */
  lowerDecode(mode: Mode, params: Params, state: DecodeState): k.Program {
    const fn = this.bound(params).decode[mode];
    return this.opts.constantWeights ? fn.jitted.lower(state) : fn.jitted.lower(params, state);
  }

  /** The programs' compile time so far, in seconds. */
  get compileSeconds(): number {
    return this.compiles.reduce((s, c) => s + c.seconds, 0);
  }

  private counted<T>(fn: k.Jitted<any>, program: string, call: () => T): T {
    const before = fn.metrics.compiles,
      ms = fn.metrics.compileMs;
    const r = call();
    if (fn.metrics.compiles > before) this.compiles.push({ program, seconds: (fn.metrics.compileMs - ms) / 1000 });
    return r;
  }

  private decode(mode: Mode, p: Params, state: DecodeState): { state: DecodeState; out: k.Array } {
    return mode === "greedy" ? this.decodeGreedy(p, state) : this.decodeSample(p, state);
  }

  private prefill(mode: Mode, p: Params, ids: k.Array, positions: k.Array, slotMask: k.Array, next: k.Array) {
    const [batch, promptLength] = ids.shape as [number, number];
    const capacity = slotMask.shape[1]!;
    const empty = this.model.initCache(batch, capacity, this.opts.dtype);
    const { hidden, cache } = this.model.forwardCached(p, ids, positions, slotMask, empty, 0, { dtype: this.opts.dtype });
    // Prompts are left-padded: every row's last prompt token is at the last position.
    const logits = this.lastLogits(p, hidden.slice([0, promptLength - 1, 0], [batch, promptLength, hidden.shape[2]!]));
    const state: DecodeState = {
      cache,
      tokens: k.zeros([batch], "i32"),
      positions: next,
      slotMask,
      start: k.full([], promptLength, "i32"),
      finished: k.zeros([batch], "i32"),
      stopAtEos: k.full([], 1, "i32"),
    };
    if (mode === "sample") return { state, out: logits };
    const first = k.argmax(logits, -1);
    return { state: { ...state, tokens: first }, out: first };
  }

  /** Logits [batch, vocab] in f32 from hidden states [batch, 1, hidden]. */
  private lastLogits(p: Params, hidden: k.Array): k.Array {
    const [batch, , width] = hidden.shape as [number, number, number];
    return this.model.lmHead(p, hidden.reshape([batch, width])).astype("f32");
  }

  /**
   * One step: feeds `tokens` at `start`, returns the next position's logits and the advanced state.
   * With `deferWrites` the new keys and values join the cache's fresh rows and the slot mask stays
   * as it was (the caller writes both when the call's steps are done: writeFreshRows).
   */
  private step(p: Params, s: DecodeState, deferWrites = false): { logits: k.Array; state: DecodeState } {
    const [batch, capacity] = s.slotMask.shape as [number, number];
    const slotMask = deferWrites ? s.slotMask : k.where(k.iota([batch, capacity], 1, "i32").equal(s.start), 1, s.slotMask);
    // Positions past the model's table only occur in steps past maxNewTokens, whose tokens are dropped.
    const positions = s.positions.minimum(this.model.maxLength - 1);
    const { hidden, cache } = this.model.forwardCached(
      p,
      s.tokens.reshape([batch, 1]),
      positions.reshape([batch, 1]),
      slotMask,
      s.cache,
      s.start,
      { dtype: this.opts.dtype, deferCacheWrites: deferWrites },
    );
    return {
      logits: this.lastLogits(p, hidden),
      state: { ...s, cache, slotMask, positions: s.positions.add(1), start: s.start.add(1) },
    };
  }

  private decodeSample(p: Params, s: DecodeState): { state: DecodeState; out: k.Array } {
    const { logits, state } = this.step(p, s);
    return { state, out: logits };
  }

  /**
   * stepsPerCall greedy steps; finished rows emit padding. Returns the tokens [steps, batch]. Unrolled,
   * the steps defer their cache writes: each attends to the cache as the call found it plus the call's
   * own rows, which are written once at the end (writeFreshRows).
   */
  private decodeGreedy(p: Params, s: DecodeState): { state: DecodeState; out: k.Array } {
    const deferWrites = this.opts.decodeLoop === "unrolled";
    const one = (st: DecodeState): [DecodeState, k.Array] => {
      const { logits, state } = this.step(p, st, deferWrites);
      const best = k.argmax(logits, -1);
      const tokens = k.where(state.finished.equal(1), this.opts.padId, best);
      const finished = state.finished.maximum(this.isEos(tokens).mul(state.stopAtEos));
      return [{ ...state, tokens, finished }, tokens];
    };
    const n = this.opts.stepsPerCall;
    if (this.opts.decodeLoop === "scan") {
      const [state, ys] = k.scan((st: DecodeState) => one(st), s, null, { length: n, name: "generate_decode_step" });
      return { state, out: ys };
    }
    const ys: k.Array[] = [];
    let state = s;
    for (let i = 0; i < n; i++) {
      const [next, y] = one(state);
      state = next;
      ys.push(y);
    }
    return { state: this.writeFreshRows(s, state, ys.at(-1)!), out: k.stack(ys, 0) };
  }

  /**
   * The call's fresh rows written into the cache at the slots the call started from, and those slots
   * added to the mask. The slots start at start + max over rows of min(last token, 0): exactly start
   * (token ids are never negative), but computed from the call's last tokens, so the write comes after
   * every read of the old cache and an executor may write the cache in place (exec/ort/in-place.ts).
   */
  private writeFreshRows(from: DecodeState, s: DecodeState, last: k.Array): DecodeState {
    const [batch, capacity] = s.slotMask.shape as [number, number];
    const n = this.opts.stepsPerCall;
    const at = from.start.add(last.minimum(0).max(0));
    const layers = s.cache.layers.map((l) => ({
      key: writeCache(l.key, l.fresh!.key, at),
      value: writeCache(l.value, l.fresh!.value, at),
    }));
    const slot = k.iota([batch, capacity], 1, "i32");
    const written = slot.greaterEqual(from.start).and(slot.less(from.start.add(n)));
    return { ...s, cache: { layers }, slotMask: k.where(written, 1, s.slotMask) };
  }

  /** 1 where a token is one of the end-of-sequence ids (i32 [batch]); all 0 when stopping is off. */
  private isEos(tokens: k.Array): k.Array {
    let hit: k.Array = k.zeros(tokens.shape, "i32");
    for (const id of this.opts.eosIds) hit = hit.maximum(tokens.equal(id).astype("i32"));
    return hit;
  }
}
