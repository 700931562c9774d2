// A cache of token ids per space-separated piece of text, for tokenizers where encoding a text equals
// encoding its pieces one by one. Most of the time of Hugging Face `tokenizers` goes to per-token
// bookkeeping (offsets, token strings, alignments) that data preparation throws away; corpus text
// repeats the same words constantly, so encoding each distinct piece once is several times faster.
//
// When it holds: with no normalizer and a Metaspace pre-tokenizer that splits (`split: true`) and
// prepends "▁" (`prepend_scheme` "always" or "first"), a text is cut at every space and each part
// becomes "▁part"; the model then tokenizes each part on its own. So the ids of a text are the ids of
// each space-separated piece encoded alone (an empty piece between two spaces is a lone "▁", encoded
// from " "), wrapped in the post-processor's special tokens. Two things break that equivalence, and
// texts containing them are encoded whole instead: added tokens (they are cut out before
// pre-tokenization, so the spaces around them change meaning) and a literal "▁" in the text.
import type { Tokenizer } from "tokenizers";
import { PieceTable } from "./piece-table.js";
import { IdBuffer, type EncodedTexts } from "./id-buffer.js";

/** The parts of a tokenizer.json this module looks at. */
export interface TokenizerConfig {
  normalizer: unknown;
  pre_tokenizer: { type?: string; prepend_scheme?: string; split?: boolean; add_prefix_space?: boolean; replacement?: string } | null;
  model: { type?: string; dropout?: number | null };
  added_tokens?: { id: number; content: string; special?: boolean; lstrip?: boolean; rstrip?: boolean; single_word?: boolean }[];
}

const REPLACEMENT = "\u2581";

/** Why the piece cache cannot be used with this tokenizer, or null when it can. */
export function pieceCacheBlocker(config: TokenizerConfig): string | null {
  if (config.normalizer !== null && config.normalizer !== undefined) return "the tokenizer has a normalizer";
  const pre = config.pre_tokenizer;
  if (!pre || pre.type !== "Metaspace") return "the pre-tokenizer is not Metaspace";
  if ((pre.replacement ?? REPLACEMENT) !== REPLACEMENT) return "the Metaspace replacement is not ▁";
  if (pre.split === false) return "the Metaspace pre-tokenizer does not split";
  const prepends = pre.prepend_scheme === undefined ? pre.add_prefix_space !== false : pre.prepend_scheme === "always" || pre.prepend_scheme === "first";
  if (!prepends) return "the Metaspace pre-tokenizer does not prepend ▁";
  if (config.model.type === "BPE" && config.model.dropout) return "BPE dropout is random";
  for (const t of config.added_tokens ?? []) {
    if (t.lstrip || t.rstrip || t.single_word) return `added token ${JSON.stringify(t.content)} strips or matches whole words`;
    if (t.content.includes(" ") || t.content === "") return `added token ${JSON.stringify(t.content)} contains a space`;
  }
  return null;
}

/** Pieces per joined text when learning new pieces (a few texts, so the tokenizer can use its threads). */
const LEARN_GROUP = 8192;

/** Entries kept before the cache is emptied, bounding memory on corpora with huge vocabularies. */
const MAX_ENTRIES = 1_000_000;

export class PieceCache {
  private readonly table = new PieceTable();
  /** The batch in progress: batches run one at a time (see encodeBatch). */
  private previous: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly addedTokens: readonly string[],
    private readonly prefix: readonly number[],
    private readonly suffix: readonly number[],
  ) {}

  /**
   * Sets up the cache for `tokenizer`, learning the special tokens its post-processor puts around a
   * single text. Returns null if the post-processor does something other than wrap the text.
   */
  static async create(tokenizer: Tokenizer, config: TokenizerConfig): Promise<PieceCache | null> {
    const probe = "a";
    const plain = (await tokenizer.encode(probe, null, { addSpecialTokens: false })).getIds();
    const full = await tokenizer.encode(probe);
    const ids = full.getIds();
    const special = full.getSpecialTokensMask();
    let start = 0;
    while (start < ids.length && special[start] === 1) start++;
    const end = start + plain.length;
    if (end > ids.length || ids.slice(start, end).some((id, i) => id !== plain[i]) || special.slice(end).some((s) => s !== 1)) return null;
    const added = (config.added_tokens ?? []).map((t) => t.content);
    return new PieceCache(tokenizer, added, ids.slice(0, start), ids.slice(end));
  }

  /** Ids of all texts back to back, and the number of ids of each. */
  encodeBatch(texts: readonly string[]): Promise<EncodedTexts> {
    // One batch at a time: a batch that overlapped another could see pieces still being learned.
    const result = this.previous.then(() => this.encodeOne(texts));
    this.previous = result.catch(() => {});
    return result;
  }

  private async encodeOne(texts: readonly string[]): Promise<EncodedTexts> {
    const table = this.table;
    if (table.size > MAX_ENTRIES) table.clear();
    // Pass 1: the entry id of every piece, adding new pieces to the table.
    const entries = new IdBuffer();
    const pieceCounts = new Int32Array(texts.length).fill(-1); // -1: encoded whole
    const whole: string[] = [];
    const known = table.size;
    for (let t = 0; t < texts.length; t++) {
      const text = texts[t]!;
      if (this.mustEncodeWhole(text)) {
        whole.push(text);
        continue;
      }
      const before = entries.length;
      // A leading space only marks the first piece ("▁" is prepended only when absent).
      let start = text.charCodeAt(0) === 32 ? 1 : 0;
      while (text.length > 0) {
        const space = text.indexOf(" ", start);
        const end = space < 0 ? text.length : space;
        entries.pushOne(table.lookupOrAdd(text, start, end));
        if (space < 0) break;
        start = space + 1;
      }
      pieceCounts[t] = entries.length - before;
    }
    if (table.size > known) {
      try {
        await this.learn(known, table.size);
      } catch (e) {
        table.truncate(known); // no half-learned entries may stay behind
        throw e;
      }
    }
    const wholeIds = whole.length > 0 ? (await this.tokenizer.encodeBatch(whole)).map((e) => e.getIds()) : [];

    // Pass 2: the ids of every text.
    const ids = entries.finish();
    const out = new IdBuffer();
    const lengths = new Int32Array(texts.length);
    const values = table.values;
    let at = 0;
    let nextWhole = 0;
    for (let t = 0; t < texts.length; t++) {
      const start = out.length;
      const count = pieceCounts[t]!;
      if (count < 0) out.push(wholeIds[nextWhole++]!);
      else {
        out.push(this.prefix);
        for (const end = at + count; at < end; at++) out.push(values[ids[at]!]!);
        out.push(this.suffix);
      }
      lengths[t] = out.length - start;
    }
    return { ids: out.finish(), lengths };
  }

  /**
   * Encodes the table entries [from, to) with the tokenizer. The pieces are joined with spaces into a
   * few long texts, which costs the tokenizer far less than one encoding per piece; each piece becomes
   * exactly one pre-token of the joined text, so the encoding's word ids say which ids belong to which
   * piece. The empty piece (a lone "▁") cannot be joined and is encoded from " " on its own.
   */
  private async learn(from: number, to: number): Promise<void> {
    const { keys, values } = this.table;
    const joinable: number[] = [];
    for (let id = from; id < to; id++) {
      if (keys[id] === "") values[id] = (await this.tokenizer.encode(" ", null, { addSpecialTokens: false })).getIds();
      else joinable.push(id);
    }
    const groups: number[][] = [];
    for (let i = 0; i < joinable.length; i += LEARN_GROUP) groups.push(joinable.slice(i, i + LEARN_GROUP));
    const encodings = await this.tokenizer.encodeBatch(groups.map((g) => g.map((id) => keys[id]).join(" ")), { addSpecialTokens: false });
    groups.forEach((group, g) => {
      const ids = encodings[g]!.getIds();
      const words = encodings[g]!.getWordIds();
      const pieces: number[][] = group.map(() => []);
      let previous = 0;
      for (let k = 0; k < ids.length; k++) {
        const w = words[k];
        if (w === null || w === undefined || w < previous || w >= group.length) throw new Error(`the tokenizer split learned pieces unexpectedly (word id ${w} at token ${k})`);
        pieces[w]!.push(ids[k]!);
        previous = w;
      }
      group.forEach((id, i) => {
        if (pieces[i]!.length === 0) throw new Error(`the tokenizer gave no ids for the piece ${JSON.stringify(keys[id])}`);
        values[id] = pieces[i]!;
      });
    });
  }

  private mustEncodeWhole(text: string): boolean {
    if (text.includes(REPLACEMENT)) return true;
    for (const t of this.addedTokens) if (text.includes(t)) return true;
    return false;
  }
}
