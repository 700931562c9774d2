// The coordination store's wire protocol, spoken by its server and client (src/launch) and by PJRT's
// key-value callbacks (src/exec/xla/distributed): over TCP, each message (both ways) is a 4-byte
// big-endian length, then that many bytes of UTF-8 JSON; one request at a time per connection, replies
// in order. Values are base64 of raw bytes (PJRT's values are binary). The reader collects chunks as TCP
// delivers them and hands out whole messages.

/** A message longer than this is refused (PJRT's values are NCCL ids and topologies: kilobytes). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The longest wait a request may ask for (setTimeout's limit, about 24.8 days); the store clamps longer ones to it. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The status codes a reply's `error` carries (XLA's coordination service's names). */
export type StoreErrorCode = "ALREADY_EXISTS" | "DEADLINE_EXCEEDED" | "NOT_FOUND" | "ABORTED" | "INVALID_ARGUMENT";

/** What a client reports: the store's code, or UNAVAILABLE when the store could not be reached. */
export type StoreClientErrorCode = StoreErrorCode | "UNAVAILABLE";

export type StoreRequest =
  | { readonly op: "put"; readonly key: string; readonly value: string; readonly overwrite?: boolean }
  | { readonly op: "get"; readonly key: string; readonly timeoutMs: number }
  | { readonly op: "tryGet"; readonly key: string }
  | { readonly op: "barrier"; readonly name: string; readonly count: number; readonly timeoutMs: number; readonly rank: number }
  | { readonly op: "delete"; readonly key: string }
  | { readonly op: "abort"; readonly rank: number; readonly reason: string };

/** A reply: `value` (base64) for get and tryGet. */
export type StoreReply = { readonly ok: true; readonly value?: string } | { readonly error: StoreErrorCode; readonly message: string };

export function encodeMessage(message: StoreRequest | StoreReply): Buffer {
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
