// Trains a Unigram tokenizer the way SentencePiece does: count words, seed pieces from frequent
// substrings, then alternate EM rounds and pruning until the vocabulary is about 10% above its target,
// and finally keep the best pieces plus every required character. Special tokens take ids 0..S-1 in the
// order given. The result encodes through Kiln's fixed pipeline (see ../tokenizer.ts).
import { AddedTokenSplitter, type AddedToken } from "../added-tokens.js";
import { normalizeText } from "../normalizer.js";
import { UnigramTokenizer, type SpecialTokenRoles } from "../tokenizer.js";
import { portableScore } from "../tokenizer-json.js";
import { expectedCounts, edgeLogProbs, maximize } from "./em.js";
import { finalPieces } from "./finalize.js";
import { Lattices } from "./lattice.js";
import { prune } from "./prune.js";
import { seedPieces } from "./seed-pieces.js";
import { trainingWords } from "./training-words.js";
import { WordCounter } from "./word-counter.js";

/** The special tokens a trained tokenizer gets by default, ids 0, 1, … in this order. */
export const DEFAULT_SPECIAL_TOKENS: readonly string[] = ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"];
/** Which of DEFAULT_SPECIAL_TOKENS plays which role (cls, sep, unk, pad, mask). */
export const DEFAULT_ROLES: SpecialTokenRoles = { cls: "[CLS]", sep: "[SEP]", unk: "<unk>", pad: "<pad>", mask: "[MASK]" };

/** Options of trainUnigram: vocabulary size, special tokens, piece length, coverage, and the pruning schedule. */
export interface UnigramTrainOptions {
  /** Total vocabulary size, special tokens included. */
  vocabSize: number;
  /** Special tokens, given ids 0, 1, … in this order. Default [CLS] [SEP] <unk> <pad> [MASK]. */
  specialTokens?: readonly string[];
  /** Which special token plays which role; each must be in `specialTokens`. Defaults as above. */
  roles?: Partial<SpecialTokenRoles>;
  /** Longest piece, in characters. Default 16. */
  maxPieceLength?: number;
  /** Share of character occurrences the kept characters must cover; the rest become <unk>. Default 1. */
  characterCoverage?: number;
  /** Each pruning round keeps this share of the pieces. Default 0.75. */
  shrinkingFactor?: number;
  /** EM rounds between prunings. Default 2. */
  subIterations?: number;
  /** Most substrings to seed EM with. Default 1,000,000. */
  seedSize?: number;
  onProgress?: (progress: TrainProgress) => void;
}

/** A trainUnigram progress event: counting, seeding, an EM round, done. */
export type TrainProgress =
  | { phase: "count"; documents: number; words: number; distinctWords: number }
  | { phase: "seed"; pieces: number; distinctWords: number; characters: number }
  | { phase: "em"; round: number; expectedRounds: number; pieces: number; objective: number }
  | { phase: "done"; vocabSize: number };

interface Settings {
  vocabSize: number;
  specialTokens: readonly string[];
  roles: SpecialTokenRoles;
  maxPieceLength: number;
  characterCoverage: number;
  shrinkingFactor: number;
  subIterations: number;
  seedSize: number;
}

function settings(opts: UnigramTrainOptions): Settings {
  const s: Settings = {
    vocabSize: opts.vocabSize,
    specialTokens: opts.specialTokens ?? DEFAULT_SPECIAL_TOKENS,
    roles: { ...DEFAULT_ROLES, ...opts.roles },
    maxPieceLength: opts.maxPieceLength ?? 16,
    characterCoverage: opts.characterCoverage ?? 1,
    shrinkingFactor: opts.shrinkingFactor ?? 0.75,
    subIterations: opts.subIterations ?? 2,
    seedSize: opts.seedSize ?? 1_000_000,
  };
  const positiveInt = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got ${v}`);
  };
  positiveInt("vocab size", s.vocabSize);
  positiveInt("max piece length", s.maxPieceLength);
  positiveInt("sub-iterations", s.subIterations);
  positiveInt("seed size", s.seedSize);
  if (!(s.characterCoverage > 0 && s.characterCoverage <= 1))
    throw new Error(`character coverage must be in (0, 1], got ${s.characterCoverage}`);
  if (!(s.shrinkingFactor > 0 && s.shrinkingFactor < 1)) throw new Error(`shrinking factor must be in (0, 1), got ${s.shrinkingFactor}`);
  if (s.specialTokens.some((t) => t.length === 0)) throw new Error("special tokens must not be empty strings");
  const duplicate = s.specialTokens.find((t, i) => s.specialTokens.indexOf(t) !== i);
  if (duplicate !== undefined) throw new Error(`special token "${duplicate}" is listed twice`);
  for (const role of ["cls", "sep", "unk", "pad", "mask"] as const) {
    if (!s.specialTokens.includes(s.roles[role])) {
      throw new Error(
        `the ${role} token "${s.roles[role]}" is not among the special tokens (${s.specialTokens.join(" ")}); ` +
          `add it or name another ${role} token`,
      );
    }
  }
  return s;
}

function addedTokens(s: Settings): AddedToken[] {
  // The mask token swallows the space before it, so "is to [MASK]." reads as in fill-mask.
  return s.specialTokens.map((content, id) => ({ id, content, lstrip: content === s.roles.mask, rstrip: false, special: true }));
}

/** Trains on `lines` (one document each), streamed once; memory grows with distinct words only. */
export async function trainUnigram(lines: AsyncIterable<string> | Iterable<string>, opts: UnigramTrainOptions): Promise<UnigramTokenizer> {
  const s = settings(opts);
  const report = opts.onProgress ?? (() => {});
  const specials = addedTokens(s);

  // Special tokens in the text are cut out exactly as encoding cuts them, so they teach nothing.
  const splitter = new AddedTokenSplitter(specials);
  const counter = new WordCounter();
  const countText = (plain: string) => counter.addText(normalizeText(plain));
  const ignore = () => {};
  let documents = 0;
  const countProgress = () => report({ phase: "count", documents, words: counter.totalWords, distinctWords: counter.size });
  for await (const line of lines) {
    splitter.split(line, countText, ignore);
    if (++documents % 256 === 0) countProgress();
  }
  countProgress();
  if (counter.totalWords === 0) {
    throw new Error(`the corpus is empty: ${documents} document${documents === 1 ? "" : "s"} read, none with any text to learn from`);
  }

  const words = trainingWords(counter, s.characterCoverage);
  const chars = words.codePoints.length - 1;
  if (s.vocabSize < s.specialTokens.length + chars) {
    throw new Error(
      `vocab size ${s.vocabSize} is too small: ${s.specialTokens.length} special tokens + ${chars} required characters ` +
        `need at least ${s.specialTokens.length + chars}. Raise the vocab size` +
        (s.characterCoverage === 1 ? ", or lower the character coverage to leave rare characters to <unk>." : "."),
    );
  }

  const pieces = seedPieces(words, { maxPieceLength: s.maxPieceLength, seedSize: s.seedSize });
  report({ phase: "seed", pieces: pieces.aliveCount(), distinctWords: words.count.length, characters: chars });
  const trie = pieces.buildTrie();
  const lattices = Lattices.build(words.symbols, words.start, words.count, trie, pieces);

  // SentencePiece stops EM at 10% above the target and lets the final selection cut the rest.
  const desired = Math.trunc(s.vocabSize * 1.1);
  // Pruning keeps `shrinkingFactor` of the pieces per round (M steps drop more), hence the estimate.
  const roundsLeft = (alive: number) => Math.max(0, Math.ceil(Math.log(desired / alive) / Math.log(s.shrinkingFactor)));
  for (let round = 1; ; round++) {
    let objective = 0;
    for (let i = 0; i < s.subIterations; i++) {
      const logProb = edgeLogProbs(pieces);
      const e = expectedCounts(lattices, logProb);
      maximize(pieces, e.expected);
      objective = e.objective;
    }
    const alive = pieces.aliveCount();
    report({ phase: "em", round, expectedRounds: round + roundsLeft(alive), pieces: alive, objective });
    if (alive <= desired) break;
    prune(pieces, lattices, trie, { floor: desired, shrinkingFactor: s.shrinkingFactor });
    lattices.compact(pieces);
  }

  const reserved = new Set(s.specialTokens);
  const learned = finalPieces(pieces, words, s.vocabSize - s.specialTokens.length, reserved);
  const vocab: Array<readonly [string, number]> = [
    ...s.specialTokens.map((t) => [t, 0] as const),
    ...learned.map(([piece, score]) => [piece, portableScore(score)] as const),
  ];
  report({ phase: "done", vocabSize: vocab.length });
  return new UnigramTokenizer({ vocab, addedTokens: specials, roles: s.roles });
}
