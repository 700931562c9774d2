// Which checkpoint tensor feeds which model parameter, by the rules transformers' from_pretrained
// applies: exact names; the encoder without its base-model prefix (a RobertaModel/BertModel checkpoint
// stores `embeddings.…`, not `roberta.embeddings.…`); tied weights stored once; buffers such as
// `embeddings.position_ids` skipped. What is left over on either side is reported, never guessed at.
import type { NamedTensor } from "./safetensors.js";

/** Buffers transformers may save beside the weights; they hold no learned values. */
const BUFFER = /(^|\.)embeddings\.(position_ids|token_type_ids)$/;

export interface NameMatch {
  /** Model parameter name → the checkpoint tensor that fills it. */
  found: Map<string, NamedTensor>;
  /** Model parameters the checkpoint lacks. */
  missing: string[];
  /** Checkpoint tensors no parameter uses (buffers excluded). */
  unused: string[];
  /** Tied names the checkpoint stores separately, with the parameter they are tied to. */
  storedTies: { name: string; tiedTo: string; tensor: NamedTensor }[];
}

/**
 * Matches `names` (a model's parameters, in checkpoint naming) against `tensors`. `tied` maps a name
 * transformers ties to its source (the decoder to the word embeddings); `prefix` is the base-model prefix.
 */
export function matchCheckpointNames(
  names: readonly string[],
  tensors: Readonly<Record<string, NamedTensor>>,
  tied: Readonly<Record<string, string>>,
  prefix: string,
): NameMatch {
  const used = new Set<string>();
  const lookup = (name: string): NamedTensor | undefined => {
    for (const candidate of [name, name.startsWith(`${prefix}.`) ? name.slice(prefix.length + 1) : undefined]) {
      if (candidate !== undefined && tensors[candidate]) {
        used.add(candidate);
        return tensors[candidate];
      }
    }
    return undefined;
  };
  const found = new Map<string, NamedTensor>();
  const missing: string[] = [];
  for (const name of names) {
    const t = lookup(name);
    if (t) found.set(name, t);
    else missing.push(name);
  }
  const storedTies: NameMatch["storedTies"] = [];
  for (const [name, tiedTo] of Object.entries(tied)) {
    const t = tensors[name];
    if (t) {
      used.add(name);
      storedTies.push({ name, tiedTo, tensor: t });
    }
  }
  const unused = Object.keys(tensors).filter((n) => !used.has(n) && !BUFFER.test(n));
  return { found, missing, unused, storedTies };
}

/** "a, b, c and 4 more": a readable list of names for messages. */
export function nameList(names: readonly string[], show = 3): string {
  const head = names.slice(0, show).join(", ");
  return names.length > show ? `${head} and ${names.length - show} more` : head;
}
