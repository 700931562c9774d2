// The masked-LM objective: masking inside the compiled step (the data layer's counter-based hash,
// redrawn every epoch), then cross-entropy and accuracy on the labelled positions only, the vocabulary
// head run on a static-size gather of them (maskedLmLoss).
import type * as k from "../../core/index.js";
import type { MaskedLanguageModel, Params } from "../../models/masked-lm.js";
import { maskedLmLoss, maskCapacity } from "../../models/masked-lm.js";
import { maskTokensTraced, type TracedMaskOptions } from "../../data/mlm/mask-traced.js";
import { DEFAULT_MLM_PROBABILITY } from "../../data/mlm/mask.js";
import type { ForwardSettings, ObjectiveBatch, ObjectiveOutputs, TrainingObjective } from "./objective.js";

/** Options of maskedLmObjective: the model and its masking. */
export interface MaskedLmObjectiveOptions {
  model: MaskedLanguageModel;
  /** The masking, with its seed (training and evaluation use different seeds). */
  masking: TracedMaskOptions;
  /** Run the vocabulary head only on the labelled positions (default true; see maskedLmLoss). */
  labelledPositionsOnly?: boolean;
  /**
   * How many labelled positions of a micro-batch the vocabulary head has room for (default maskCapacity:
   * 6 standard deviations above the expected count). Labelled positions beyond it are counted in `dropped`.
   */
  labelCapacity?: number;
}

export interface MaskedTargets {
  /** The input with the selected tokens replaced ([MASK], random, kept). */
  inputIds: k.Array;
  attentionMask: k.Array;
  /** The original ids at the selected positions, -100 elsewhere. */
  labels: k.Array;
  count: k.Array;
}

/** The masked LM objective: masks tokens in the compiled step and takes the cross-entropy on them. */
export function maskedLmObjective(o: MaskedLmObjectiveOptions): TrainingObjective<MaskedTargets> {
  const { model } = o;
  return {
    task: "mlm",
    model,
    targets(batch: ObjectiveBatch): MaskedTargets {
      const m = maskTokensTraced(batch.inputIds, batch.attentionMask, batch.epoch, batch.exampleOffset, o.masking);
      return {
        inputIds: m.inputIds,
        attentionMask: batch.attentionMask,
        labels: m.labels,
        count: m.labels.notEqual(-100).astype("f32").sum(),
      };
    },
    outputs(params: Params, t: MaskedTargets, forward: ForwardSettings): ObjectiveOutputs {
      const h = model.hidden(params, t.inputIds, t.attentionMask, forward);
      const out = maskedLmLoss(model, params, h, t.labels, headCapacity(o, t.labels.size));
      // maskedLmLoss's mean × its own count: the summed loss.
      return { lossSum: out.loss.mul(out.count), correct: out.correct, count: out.count, dropped: out.dropped };
    },
  };
}

/** The vocabulary head's static number of positions for a micro-batch of `tokens` tokens (undefined: all). */
function headCapacity(o: MaskedLmObjectiveOptions, tokens: number): number | undefined {
  if (o.labelledPositionsOnly === false) return undefined;
  return o.labelCapacity ?? maskCapacity(tokens, o.masking.mlmProbability ?? DEFAULT_MLM_PROBABILITY);
}
