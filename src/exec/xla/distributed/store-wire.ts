// The coordination store's wire protocol, as the launcher serves it: over TCP, each message (both ways)
// is a 4-byte big-endian length and that many bytes of UTF-8 JSON; one request at a time per
// connection, replies in order. Values are base64 of raw bytes (PJRT's values are binary).

export type StoreRequest =
  | { readonly op: "put"; readonly key: string; readonly value: string; readonly overwrite: boolean }
  | { readonly op: "get"; readonly key: string; readonly timeoutMs: number }
  | { readonly op: "tryGet"; readonly key: string }
  | { readonly op: "barrier"; readonly name: string; readonly count: number; readonly timeoutMs: number; readonly rank: number }
  | { readonly op: "delete"; readonly key: string }
  | { readonly op: "abort"; readonly rank: number; readonly reason: string };

/** A reply: `value` (base64) for get and tryGet; `error` is a status code name such as "NOT_FOUND". */
export type StoreReply = { readonly ok: true; readonly value?: string } | { readonly error: string; readonly message: string };

/** The largest message either side accepts (a guard against reading garbage as a length). */
export const MAX_MESSAGE_BYTES = 256 << 20;

export function encodeMessage(message: StoreRequest | StoreReply): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Splits a byte stream into messages: feed it chunks, it calls `onMessage` for each whole one. */
export class MessageReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onMessage: (message: unknown) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 4) {
      const n = this.pending.readUInt32BE(0);
      if (n > MAX_MESSAGE_BYTES) throw new Error(`a coordination store message of ${n} bytes (at most ${MAX_MESSAGE_BYTES})`);
      if (this.pending.length < 4 + n) return;
      const body = this.pending.subarray(4, 4 + n);
      this.pending = this.pending.subarray(4 + n);
      this.onMessage(JSON.parse(body.toString("utf8")));
    }
  }
}
