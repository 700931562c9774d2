// BPE as `tokenizers` runs it: a word starts as its characters (with the continuation prefix on all but
// the first and the end-of-word suffix on the last, when the file sets them), characters outside the
// vocabulary become <0xXX> byte tokens (byte_fallback) or the unknown token (fused when fuse_unk), and
// then the lowest-ranked merge among adjacent pairs is applied, leftmost first, until none applies.
// Byte-level files (GPT-2, RoBERTa, Llama 3) reach here with words already spelled in byte characters.
import { boolField, isRecord, type JsonObject, type JsonPlace } from "./component-json.js";
import { VocabWordModel } from "./word-model.js";
import { BinaryHeap } from "../binary-heap.js";

const encoder = new TextEncoder();
const CACHE_ENTRIES = 100_000;
const CACHE_MAX_LENGTH = 128;

interface Cached {
  ids: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
}

export class BpeModel extends VocabWordModel {
  /** (left id, right id) packed as left * 2^21 + right → rank * 2^21 + merged id. */
  private readonly merges = new Map<number, number>();
  private readonly unkId: number | undefined;
  private readonly prefix: string;
  private readonly suffix: string;
  private readonly fuseUnk: boolean;
  private readonly byteFallback: boolean;
  private readonly ignoreMerges: boolean;
  private readonly cache = new Map<string, Cached>();

  constructor(o: JsonObject, place: JsonPlace) {
    super(o.vocab, place.in("vocab"));
    if (o.dropout !== null && o.dropout !== undefined && o.dropout !== 0)
      place.in("dropout").fail(`is ${JSON.stringify(o.dropout)}; Kiln encodes deterministically, so it must be null`);
    const unk = o.unk_token;
    if (unk !== null && unk !== undefined) {
      if (typeof unk !== "string") place.in("unk_token").fail(`is ${JSON.stringify(unk)}, expected a string or null`);
      this.unkId = this.byToken.get(unk as string);
    }
    this.prefix = typeof o.continuing_subword_prefix === "string" ? o.continuing_subword_prefix : "";
    this.suffix = typeof o.end_of_word_suffix === "string" ? o.end_of_word_suffix : "";
    this.fuseUnk = boolField(o, "fuse_unk", place, false);
    this.byteFallback = boolField(o, "byte_fallback", place, false);
    this.ignoreMerges = boolField(o, "ignore_merges", place, false);
    if (this.byId.length >= 1 << 21) place.in("vocab").fail(`has ${this.byId.length} entries; Kiln's BPE takes at most 2097151`);
    const merges = o.merges;
    if (!Array.isArray(merges)) return place.in("merges").fail(`is ${JSON.stringify(merges)?.slice(0, 80)}, expected an array`);
    merges.forEach((m: unknown, rank: number) => {
      let pair: [string, string] | undefined;
      if (typeof m === "string") {
        const parts = m.split(" ");
        if (parts.length === 2) pair = [parts[0]!, parts[1]!];
      } else if (Array.isArray(m) && m.length === 2 && typeof m[0] === "string" && typeof m[1] === "string") pair = [m[0], m[1]];
      if (!pair)
        return place
          .in("merges")
          .in(rank)
          .fail(`is ${JSON.stringify(m)}, expected "left right" or [left, right]`);
      const [a, b] = pair;
      const merged = a + (this.prefix && b.startsWith(this.prefix) ? b.slice(this.prefix.length) : b);
      const ia = this.byToken.get(a),
        ib = this.byToken.get(b),
        im = this.byToken.get(merged);
      if (ia === undefined || ib === undefined || im === undefined)
        return place
          .in("merges")
          .in(rank)
          .fail(
            `merges ${JSON.stringify(a)} and ${JSON.stringify(b)}, but the vocabulary lacks ` +
              JSON.stringify(ia === undefined ? a : ib === undefined ? b : merged),
          );
      const key = ia * 2097152 + ib;
      // The first (lowest-ranked) line for a pair wins, as in `tokenizers`.
      if (!this.merges.has(key)) this.merges.set(key, rank * 2097152 + im);
    });
    if (isRecord(o) && o.type !== undefined && o.type !== "BPE") place.in("type").fail(`is ${JSON.stringify(o.type)}, expected "BPE"`);
  }

  tokenize(word: string, ids: number[], starts: number[], ends: number[]): void {
    if (word.length === 0) return;
    let cached = this.cache.get(word);
    if (cached === undefined) {
      cached = this.merge(word);
      if (word.length <= CACHE_MAX_LENGTH && this.cache.size < CACHE_ENTRIES) this.cache.set((word + " ").slice(0, -1), cached);
    }
    for (let i = 0; i < cached.ids.length; i++) {
      ids.push(cached.ids[i]!);
      starts.push(cached.starts[i]!);
      ends.push(cached.ends[i]!);
    }
  }

  private merge(word: string): Cached {
    if (this.ignoreMerges) {
      const whole = this.byToken.get(word);
      if (whole !== undefined) return { ids: Int32Array.of(whole), starts: Int32Array.of(0), ends: Int32Array.of(word.length) };
    }
    // Symbols: id, start and end (in word units) of each. Byte tokens of one character each span the character.
    const sid: number[] = [];
    const sstart: number[] = [];
    const send: number[] = [];
    let unk = -1,
      unkStart = 0,
      unkEnd = 0;
    const flushUnk = (): void => {
      if (unk >= 0) {
        sid.push(unk);
        sstart.push(unkStart);
        send.push(unkEnd);
        unk = -1;
      }
    };
    const n = word.length;
    for (let i = 0; i < n;) {
      const w = word.codePointAt(i)! > 0xffff ? 2 : 1;
      const end = i + w;
      let s = word.slice(i, end);
      if (this.prefix && i > 0) s = this.prefix + s;
      if (this.suffix && end === n) s += this.suffix;
      const id = this.byToken.get(s);
      if (id !== undefined) {
        flushUnk();
        sid.push(id);
        sstart.push(i);
        send.push(end);
      } else if (this.byteFallback && this.pushBytes(s, i, end, sid, sstart, send, flushUnk)) {
        // pushed
      } else if (this.unkId !== undefined) {
        if (unk >= 0 && !this.fuseUnk) flushUnk();
        if (unk < 0) unkStart = i;
        unk = this.unkId;
        unkEnd = end;
      }
      i = end;
    }
    flushUnk();
    this.applyMerges(sid, sstart, send);
    return { ids: Int32Array.from(sid), starts: Int32Array.from(sstart), ends: Int32Array.from(send) };
  }

  /** <0xXX> tokens for the bytes of `s`, each spanning the character. */
  private pushBytes(s: string, start: number, end: number, sid: number[], sstart: number[], send: number[], flushUnk: () => void): boolean {
    const bytes = encoder.encode(s);
    const byteIds: number[] = [];
    for (const b of bytes) {
      const id = this.byToken.get(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
      if (id === undefined) return false;
      byteIds.push(id);
    }
    flushUnk();
    for (const id of byteIds) {
      sid.push(id);
      sstart.push(start);
      send.push(end);
    }
    return true;
  }

  /** Applies merges in place: lowest rank first, leftmost among equals (a binary heap of candidate pairs). */
  private applyMerges(sid: number[], sstart: number[], send: number[]): void {
    const m = sid.length;
    if (m < 2) return;
    const next = new Int32Array(m),
      prev = new Int32Array(m),
      alive = new Uint8Array(m).fill(1);
    for (let i = 0; i < m; i++) {
      next[i] = i + 1 < m ? i + 1 : -1;
      prev[i] = i - 1;
    }
    // Heap entries: [rank, position, merged id].
    const heap = new BinaryHeap<number[]>(less);
    const push = (pos: number): void => {
      const r = next[pos]!;
      if (r < 0) return;
      const hit = this.merges.get(sid[pos]! * 2097152 + sid[r]!);
      if (hit === undefined) return;
      heap.push([Math.floor(hit / 2097152), pos, hit % 2097152]);
    };
    for (let i = 0; i < m - 1; i++) push(i);
    while (heap.size > 0) {
      const [, pos, mergedId] = heap.pop()!;
      if (!alive[pos!]) continue;
      const r = next[pos!]!;
      if (r < 0) continue;
      const now = this.merges.get(sid[pos!]! * 2097152 + sid[r]!);
      if (now === undefined || now % 2097152 !== mergedId) continue;
      sid[pos!] = mergedId!;
      send[pos!] = send[r]!;
      alive[r] = 0;
      next[pos!] = next[r]!;
      if (next[r]! >= 0) prev[next[r]!] = pos!;
      if (prev[pos!]! >= 0) push(prev[pos!]!);
      push(pos!);
    }
    let w = 0;
    for (let i = 0; i < m; i++)
      if (alive[i]) {
        sid[w] = sid[i]!;
        sstart[w] = sstart[i]!;
        send[w] = send[i]!;
        w++;
      }
    sid.length = sstart.length = send.length = w;
  }
}

/** Lower rank first; leftmost among equals. */
function less(a: number[], b: number[]): boolean {
  return a[0]! < b[0]! || (a[0] === b[0] && a[1]! < b[1]!);
}
