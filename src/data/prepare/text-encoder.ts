// The one place data preparation turns text into token ids: Kiln's own Unigram tokenizer (src/text),
// whose encodings are identical, id for id, to Hugging Face `tokenizers` loading the same
// tokenizer.json. Lines are encoded with the special tokens ([CLS] … [SEP]), without truncation or
// padding. The tokenizer directory may be local or gs://.
import { loadTokenizer, type Tokenizer } from "../../text/index.js";
import { storageFor } from "../storage/index.js";
import { IdBuffer, type EncodedTexts } from "./id-buffer.js";

/** Encodes texts to token ids in batches, special tokens included (Kiln's Unigram tokenizer). */
export interface Encoder {
  /** Token ids of each text, special tokens included. */
  encodeBatch(texts: string[]): Promise<number[][]>;
  /** The same ids, back to back in one array, with the number of ids of each text. */
  encodeBatchFlat(texts: string[]): Promise<EncodedTexts>;
  /** Ids of all special tokens (never masked). */
  specialIds: ReadonlySet<number>;
  padId: number;
  maskId: number;
  /** Number of ids, added tokens included. */
  vocabSize: number;
}

async function readFromStorage(path: string): Promise<string | undefined> {
  const storage = storageFor(path);
  if (!(await storage.isFile(path))) return undefined;
  return new TextDecoder().decode(await storage.readAll(path));
}

/** Opens `tokenizerDir/tokenizer.json`. */
export async function openEncoder(tokenizerDir: string): Promise<Encoder> {
  let tokenizer: Tokenizer;
  try {
    tokenizer = await loadTokenizer(tokenizerDir, readFromStorage);
  } catch (e) {
    throw new Error(
      `cannot load the tokenizer in ${tokenizerDir}: ${(e as Error).message}. Pass the directory holding tokenizer.json as the tokenizer.`,
    );
  }
  const encodeBatchFlat = async (texts: string[]): Promise<EncodedTexts> => {
    const out = new IdBuffer();
    const lengths = Int32Array.from(texts, (t) => {
      const ids = tokenizer.encode(t);
      out.push(ids);
      return ids.length;
    });
    return { ids: out.finish(), lengths };
  };
  return {
    encodeBatchFlat,
    encodeBatch: async (texts) => texts.map((t) => tokenizer.encode(t)),
    specialIds: tokenizer.specialIds,
    padId: tokenizer.padId,
    maskId: tokenizer.maskId,
    vocabSize: tokenizer.vocabSize,
  };
}
