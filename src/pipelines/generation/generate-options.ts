// The options of generate, checked before anything runs: names it does not know (transformers'
// `max_new_tokens` gets `maxNewTokens` suggested), values of the wrong type or range, and sampling
// settings given with greedy decoding, which draws nothing and would ignore them.
import { checkOptions } from "../../core/check-options.js";
import { OptionError } from "../../core/option-error.js";
import type { GenerateOptions, GeneratorOptions } from "./generator.js";
import { SAMPLING_DEFAULTS } from "./sampling.js";

const GENERATE_OPTIONS = [
  "maxNewTokens",
  "greedy",
  "seed",
  "stopAtEos",
  "temperature",
  "topK",
  "topP",
] as const satisfies readonly (keyof GenerateOptions)[];
const SAMPLING = ["temperature", "topK", "topP"] as const;

/** Checks generate's options; `extra` are the names a caller above adds (the pipeline's onToken). */
export function checkGenerateOptions(given: unknown, extra: readonly string[] = []): void {
  checkOptions("generate", given, [...GENERATE_OPTIONS, ...extra], {
    ints: ["maxNewTokens", "seed", "topK"],
    positive: ["maxNewTokens", "temperature", "topP"],
    nonNegative: ["seed", "topK"],
    numbers: ["temperature", "topP"],
    booleans: ["greedy", "stopAtEos"],
    // A sampling setting at its default changes nothing (a caller may fill every option in); any other
    // value with greedy decoding would be ignored.
    conflicts: SAMPLING.map((name) => ({
      options: ["greedy", name] as const,
      when: (o: Readonly<Record<string, unknown>>) => o.greedy === true && o[name] !== SAMPLING_DEFAULTS[name],
      fix: `Greedy decoding takes the most likely token and draws nothing: leave ${name} out, or drop greedy: true to sample`,
    })),
  });
  const topP = (given as GenerateOptions | undefined)?.topP;
  if (topP !== undefined && topP > 1)
    throw new OptionError({
      where: "generate",
      option: "topP",
      value: topP,
      why: "must be in (0, 1]",
      fix: "Pass topP: 1 to keep every token",
    });
}

/** Checks the options a generator (or a text-generation pipeline) is made with. */
export function checkGeneratorOptions(where: string, given: unknown, extra: readonly string[] = []): void {
  const known = ["stepsPerCall", "decodeLoop", "dtype", "constantWeights"] as const satisfies readonly (keyof GeneratorOptions)[];
  checkOptions(where, given, [...known, ...extra], {
    ints: ["stepsPerCall"],
    positive: ["stepsPerCall"],
    booleans: ["constantWeights"],
    choices: { decodeLoop: ["unrolled", "scan"], dtype: ["f32", "f64", "bf16", "f16"] },
  });
}
