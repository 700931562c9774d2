// A child's output, a line at a time, each line behind its rank's prefix ("[rank 3] "), so that the output
// of many processes interleaves by whole lines and each says who wrote it. A carriage return ends a line
// too (a progress bar redraws behind its prefix); the last unfinished line is flushed when the stream ends.
import { StringDecoder } from "node:string_decoder";
import type { Readable, Writable } from "node:stream";

/** Relays `from` to `to` with `prefix` before every line; resolves when `from` has ended. */
export function relayLines(from: Readable, to: Writable, prefix: string): Promise<void> {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  const take = (text: string) => {
    pending += text;
    let out = "";
    let start = 0;
    for (let i = 0; i < pending.length; i++) {
      const c = pending[i];
      if (c !== "\n" && c !== "\r") continue;
      // "\r\n" is one line end; a "\r" at the very end waits to see whether "\n" follows.
      if (c === "\r" && i + 1 === pending.length) break;
      const end = c === "\r" && pending[i + 1] === "\n" ? i + 2 : i + 1;
      out += prefix + pending.slice(start, end);
      start = end;
      i = end - 1;
    }
    pending = pending.slice(start);
    if (out) to.write(out);
  };
  // A reader that went away (`kiln launch … | head`) ends the relay, not the launcher.
  if (to.listenerCount("error") === 0) to.on("error", () => {});
  return new Promise((resolve) => {
    from.on("data", (chunk: Buffer) => take(decoder.write(chunk)));
    let ended = false;
    const finish = () => {
      if (ended) return;
      ended = true;
      take(decoder.end());
      if (pending) to.write(`${prefix}${pending.replace(/\r$/, "")}\n`);
      pending = "";
      resolve();
    };
    from.once("end", finish);
    from.once("error", finish);
    from.once("close", finish); // a stream destroyed without an end (a process that could not start)
  });
}
