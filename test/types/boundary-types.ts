// Mistakes the types catch at Kiln's library boundary. This file is compiled with the project
// (tsconfig.json includes test/), and never run: each `@ts-expect-error` line must fail to type-check,
// so `npx tsc` fails when a type loosens and the mistake would compile again. The lines without it are
// the correct uses, which must keep compiling with the types they show.
import * as k from "../../src/index.js";
import {
  LlamaForCausalLM,
  RobertaForMaskedLM,
  presetConfig,
  type LlamaParams,
  type MaskedLanguageModel,
  type RobertaParams,
} from "../../src/models/index.js";
import { AdamW } from "../../src/optim/index.js";
import type { FillMaskPipeline, FillMaskResult } from "../../src/pipelines/fill-mask.js";
import type { TextGenerationPipeline } from "../../src/pipelines/text-generation.js";
import type { Trainer } from "../../src/train/trainer.js";

/** Holds a value of exactly type T (a wider or narrower type is an error). */
type Exactly<T, U> = [T] extends [U] ? ([U] extends [T] ? true : false) : false;
const exactly = <T, U>(_proof: Exactly<T, U>): void => {};

export async function typeExpectations(
  tokenizer: { vocabSize: number; padId: number },
  fill: FillMaskPipeline,
  gen: TextGenerationPipeline,
  trainer: Trainer,
): Promise<void> {
  // ---- preset names: a family's own names, literals checked ----
  const roberta = RobertaForMaskedLM.fromPreset("mlm-small", tokenizer);
  // @ts-expect-error a typo in a preset name
  RobertaForMaskedLM.fromPreset("mlm-smal", tokenizer);
  // @ts-expect-error a preset of another family (llama-tiny is not a RoBERTa)
  RobertaForMaskedLM.fromPreset("llama-tiny", tokenizer);
  const llama = LlamaForCausalLM.fromPreset("llama-tiny", tokenizer);
  // @ts-expect-error no such preset
  presetConfig("mlm-huge", tokenizer);
  const fromFlag: string = process.argv[2] ?? "mlm-small";
  presetConfig(fromFlag, tokenizer); // a name read at run time is checked when called

  // ---- dtypes: names checked, element types follow them ----
  // @ts-expect-error NumPy's name for f32
  k.zeros([2], "float32");
  // @ts-expect-error a shape is a list
  k.zeros(2);
  exactly<Float32Array, Awaited<ReturnType<k.Array<"f32">["data"]>>>(true);
  const f32: Float32Array = await k.zeros([2]).data();
  const i32: Int32Array = k.ones([2], "i32").dataSync();
  const fromInts: Int32Array = k.array(new Int32Array(3)).dataSync();
  const bits: Uint16Array = k.zeros([2]).astype("bf16").dataSync();
  const mask: Uint8Array = k.zeros([2]).greater(0).dataSync();
  // @ts-expect-error f32 data is not an Int32Array
  const wrong: Int32Array = k.zeros([2]).dataSync();
  // @ts-expect-error astype takes Kiln's dtype names
  k.zeros([2]).astype("int32");
  void [f32, i32, fromInts, bits, mask, wrong];

  // ---- parameter trees: the model's type flows through gradients, the optimizer and loading ----
  const params = roberta.init(k.randomKey(0));
  exactly<RobertaParams, typeof params>(true);
  const ids = k.zeros([1, 8], "i32");
  const loss = (p: RobertaParams) => roberta.lmHead(p, roberta.hidden(p, ids, ids)).mean();
  const [value, grads] = k.valueAndGrad(loss)(params);
  exactly<RobertaParams, typeof grads>(true);
  const step: k.Array = value;
  // @ts-expect-error RoBERTa's tree has no "bert" branch
  void grads.bert;
  // @ts-expect-error the loss takes RoBERTa's parameters, not an array
  k.valueAndGrad(loss)(k.zeros([2]));
  const [, second] = k.valueAndGrad((a: k.Array, b: RobertaParams) => a.sum().add(loss(b)), { argnums: 1 })(step, params);
  exactly<RobertaParams, typeof second>(true);
  const adamw = new AdamW({ learningRate: 1e-3 });
  const updated = adamw.update(grads, adamw.init(params), params).params;
  exactly<RobertaParams, typeof updated>(true);
  const llamaParams: LlamaParams = llama.init(k.randomKey(1));
  // @ts-expect-error Llama's parameters in a RoBERTa's forward pass
  roberta.hidden(llamaParams, ids, ids);
  const loaded = await RobertaForMaskedLM.fromPretrained("model-dir");
  exactly<RobertaParams, typeof loaded.params>(true);
  const asInterface: MaskedLanguageModel<RobertaParams> = roberta;
  void asInterface;

  // ---- fill-mask: one text gives one list, a list of texts a list per text ----
  const one: FillMaskResult[] = await fill.call("The [MASK].");
  const perText: FillMaskResult[][] = await fill.call(["The [MASK].", "A [MASK]."]);
  const perMask: FillMaskResult[][] = await fill.call("[MASK] and [MASK]", { eachMask: true });
  // @ts-expect-error one text without eachMask gives a single list, not one per mask
  const nested: FillMaskResult[][] = await fill.call("The [MASK].");
  // @ts-expect-error transformers' spelling of topK
  await fill.call("The [MASK].", { top_k: 3 });
  // @ts-expect-error eachMask takes one text
  await fill.call(["The [MASK]."], { eachMask: true });
  void [one, perText, perMask, nested];

  // ---- generate: option names and types ----
  // @ts-expect-error transformers' spelling of maxNewTokens
  await gen.generate("We", { max_new_tokens: 4 });
  // @ts-expect-error a string where a number belongs
  await gen.generate("We", { maxNewTokens: "4" });

  // ---- the Trainer and fit ----
  // @ts-expect-error outputDir is required
  void ({} satisfies ConstructorParameters<typeof Trainer>[0]);
  // @ts-expect-error a string where a number belongs
  void ({ outputDir: "runs/1", maxSteps: "2" } satisfies ConstructorParameters<typeof Trainer>[0]);
  // @ts-expect-error fit reads a dataset, not a directory name
  await trainer.fit({ model: roberta, optimizer: { learningRate: 1e-3 }, train: "data/train" });
  // @ts-expect-error the precision names are Lightning's
  void ({ outputDir: "runs/1", precision: "fp16" } satisfies ConstructorParameters<typeof Trainer>[0]);
}
