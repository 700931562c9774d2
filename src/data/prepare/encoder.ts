// The one place data preparation turns text into token ids. It loads a Hugging Face tokenizer.json
// with the `tokenizers` binding and encodes with the tokenizer's special tokens ([CLS] … [SEP]),
// without truncation or padding. Swapping in another tokenizer implementation means changing only
// this file.
import { Tokenizer } from "tokenizers";
import { storageFor, joinPath } from "../storage/index.js";
import { PieceCache, pieceCacheBlocker, type TokenizerConfig } from "./piece-cache.js";
import { IdBuffer, type EncodedTexts } from "./id-buffer.js";

export interface Encoder {
  /** Token ids of each text, special tokens included. */
  encodeBatch(texts: string[]): Promise<number[][]>;
  /** The same ids, back to back in one array, with the number of ids of each text. */
  encodeBatchFlat(texts: string[]): Promise<EncodedTexts>;
  /** Ids of all special tokens (never masked). */
  specialIds: ReadonlySet<number>;
  /** Id of the padding token, if the tokenizer has one. */
  padId: number | undefined;
  /** Id of the mask token, if the tokenizer has one. */
  maskId: number | undefined;
  /** Number of ids, added tokens included. */
  vocabSize: number;
  /** Whether encoding goes through the piece cache (see piece-cache.ts) or encodes whole texts. */
  cached: boolean;
}

export interface OpenEncoderOptions {
  /** Use the piece cache when the tokenizer allows it (default true). Results are identical either way. */
  pieceCache?: boolean;
}

const PAD_TOKENS = ["<pad>", "[PAD]"];
const MASK_TOKENS = ["[MASK]", "<mask>"];

/** Opens `tokenizerDir/tokenizer.json`. */
export async function openEncoder(tokenizerDir: string, options: OpenEncoderOptions = {}): Promise<Encoder> {
  const path = joinPath(tokenizerDir, "tokenizer.json");
  let json: string;
  try {
    json = new TextDecoder().decode(await storageFor(path).readAll(path));
  } catch (e) {
    throw new Error(`cannot read the tokenizer at ${path}: ${(e as Error).message}. Pass --tokenizer the directory holding tokenizer.json.`);
  }
  let config: TokenizerConfig;
  let tokenizer: Tokenizer;
  try {
    config = JSON.parse(json);
    tokenizer = Tokenizer.fromString(json);
  } catch (e) {
    throw new Error(`${path} is not a valid Hugging Face tokenizer.json: ${(e as Error).message}`);
  }
  // The reference pipeline encodes whole lines; chunking happens later.
  tokenizer.disableTruncation();
  tokenizer.disablePadding();

  const specialIds = new Set((config.added_tokens ?? []).filter((t) => t.special).map((t) => t.id));
  const idOf = (names: string[]) => names.map((n) => tokenizer.tokenToId(n)).find((id) => id !== null && id !== undefined) ?? undefined;
  const cache = options.pieceCache === false || pieceCacheBlocker(config) !== null ? null : await PieceCache.create(tokenizer, config);
  const encodeBatchFlat = cache
    ? (texts: string[]) => cache.encodeBatch(texts)
    : async (texts: string[]): Promise<EncodedTexts> => {
        const out = new IdBuffer();
        const lengths = Int32Array.from(await tokenizer.encodeBatch(texts), (e) => {
          const ids = e.getIds();
          out.push(ids);
          return ids.length;
        });
        return { ids: out.finish(), lengths };
      };
  return {
    encodeBatchFlat,
    async encodeBatch(texts) {
      const { ids, lengths } = await encodeBatchFlat(texts);
      let at = 0;
      return Array.from(lengths, (n) => Array.from(ids.subarray(at, (at += n))));
    },
    specialIds,
    padId: idOf(PAD_TOKENS),
    maskId: idOf(MASK_TOKENS),
    vocabSize: tokenizer.getVocabSize(true),
    cached: cache !== null,
  };
}
