// The arguments of a model's forward pass (`hidden`), checked where the user hands them over: ids of
// the wrong rank or dtype, a mask of another shape, sequences longer than the model has positions for,
// parameters that are not a tree, and option names it does not know. Without this a 1-D ids array
// fails deep inside the embedding lookup ("Cannot convert undefined to a BigInt") and a sequence past
// the position table reads positions that do not exist.
import * as k from "../core/index.js";
import { checkOptions } from "../core/check-options.js";
import { checkDType } from "../core/check-array-args.js";
import { OptionError } from "../core/option-error.js";

const FORWARD_OPTIONS = ["dropoutKey", "exampleOffset", "dtype", "layerLoop"] as const;
const CAUSAL_FORWARD_OPTIONS = [...FORWARD_OPTIONS, "positionIds"] as const;
const MASKED_FORWARD_OPTIONS = [...FORWARD_OPTIONS, "tokenTypeIds", "firstTokenOnly"] as const;

export interface ForwardCheck {
  /** "RobertaForMaskedLM.hidden". */
  where: string;
  /** The longest sequence the model has positions for. */
  maxLength: number;
  /** Where that limit comes from, for the message: "max_position_embeddings 36". */
  limitSource: string;
  causal: boolean;
}

/** Throws an OptionError naming the first wrong argument of a forward pass. */
export function checkForwardInputs(c: ForwardCheck, params: unknown, inputIds: unknown, attentionMask: unknown, opts: unknown): void {
  const { where } = c;
  if (typeof params !== "object" || params === null || Array.isArray(params) || params instanceof k.Array)
    throw new OptionError({
      where,
      option: "params",
      value: params,
      why: "is not a parameter tree",
      fix: "Pass the parameters model.init(key) made, or those loadModel / fromPretrained returned",
    });
  checkIsArray(where, "inputIds", inputIds, 'Make one with k.array(ids, { shape: [batch, length], dtype: "i32" })');
  if (inputIds.ndim !== 2)
    throw new OptionError({
      where,
      option: "inputIds",
      value: inputIds,
      why: "must have two dimensions, [batch, length]",
      fix: inputIds.ndim === 1 ? `Add the batch dimension: inputIds.reshape([1, ${inputIds.shape[0]}])` : "Reshape it to [batch, length]",
    });
  if (!["i32", "i64", "u32"].includes(inputIds.dtype))
    throw new OptionError({
      where,
      option: "inputIds",
      value: inputIds,
      why: "must hold integer token ids",
      fix: 'Convert it with .astype("i32"), or make it with dtype "i32"',
    });
  const length = inputIds.shape[1]!;
  if (length > c.maxLength)
    throw new OptionError({
      where,
      option: "inputIds",
      value: inputIds,
      why: `holds sequences of ${length} tokens, but the model has positions for ${c.maxLength} (${c.limitSource})`,
      fix: `Cut the sequences to ${c.maxLength} tokens, or use a model config with more positions`,
    });
  checkIsArray(
    where,
    "attentionMask",
    attentionMask,
    `Pass 1 for each real token and 0 for padding, of the shape of inputIds ([${inputIds.shape.join(", ")}])`,
  );
  if (attentionMask.shape.join() !== inputIds.shape.join())
    throw new OptionError({
      where,
      option: "attentionMask",
      value: attentionMask,
      why: `must have the shape of inputIds, [${inputIds.shape.join(", ")}]`,
      fix: "Pass one mask value per token",
    });
  checkOptions(where, opts, c.causal ? CAUSAL_FORWARD_OPTIONS : MASKED_FORWARD_OPTIONS, {
    choices: { layerLoop: ["unrolled", "scan"] },
  });
  const dtype = (opts as { dtype?: unknown } | undefined)?.dtype;
  if (dtype !== undefined) checkDType(where, dtype);
}

/** An OptionError naming `option` unless `value` is an Array. */
function checkIsArray(where: string, option: string, value: unknown, fix: string): asserts value is k.Array {
  if (!(value instanceof k.Array)) throw new OptionError({ where, option, value, why: "is not an Array", fix });
}
