// The coordination store's framing, both ways: a 4-byte big-endian length, then that many bytes of UTF-8
// JSON. The reader collects chunks as TCP delivers them and hands out whole messages.

/** A message longer than this is refused (PJRT's values are NCCL ids and topologies: kilobytes). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The status codes a reply's `error` carries (XLA's coordination service's names). */
export type StoreErrorCode = "ALREADY_EXISTS" | "DEADLINE_EXCEEDED" | "NOT_FOUND" | "ABORTED" | "INVALID_ARGUMENT";

export type StoreRequest =
  | { op: "put"; key: string; value: string; overwrite?: boolean }
  | { op: "get"; key: string; timeoutMs: number }
  | { op: "tryGet"; key: string }
  | { op: "barrier"; name: string; count: number; timeoutMs: number; rank: number }
  | { op: "delete"; key: string }
  | { op: "abort"; rank: number; reason: string };

export type StoreReply = { ok: true; value?: string } | { error: StoreErrorCode; message: string };

export function encodeMessage(message: object): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** Thrown by the reader for a frame that cannot be read; the stream cannot be trusted after it. */
export class FrameError extends Error {}

/** Splits a byte stream into messages; `push` returns the whole messages the chunk completed (raw JSON text). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): string[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: string[] = [];
    for (;;) {
      if (this.buffered < 4) return out;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.chunks = [all];
      const length = all.readUInt32BE(0);
      if (length > MAX_MESSAGE_BYTES)
        throw new FrameError(`a message of ${length} bytes is longer than the ${MAX_MESSAGE_BYTES} the store accepts`);
      if (all.length < 4 + length) return out;
      out.push(all.subarray(4, 4 + length).toString("utf8"));
      const rest = all.subarray(4 + length);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
    }
  }
}
