// Noticing a gs:// answer whose connection was cut before its last byte. @google-cloud/storage 8 fails
// such a request with ECONNRESET; 7 (node-fetch 2 underneath, which pipes the answer into the body it
// hands out without passing on its errors) leaves the body open, neither ending nor failing, so the
// request would wait out its timeout and be retried as a stall. Node's HTTP client announces each
// request it starts on a diagnostics channel; a request started within watchCuts (by the call itself
// or anything it set off) is followed, and an answer that closes incomplete is reported at once to
// the watcher, with the socket's own error (ECONNRESET), whichever version of the library is in use.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";

/** Told of a cut answer; a call whose try has already ended ignores it. */
export type OnCut = (e: Error) => void;

const watcher = new AsyncLocalStorage<OnCut>();
let subscribed = false;

function followRequest(message: unknown): void {
  const onCut = watcher.getStore();
  if (!onCut) return;
  const { request } = message as { request: ClientRequest };
  request.once("response", (answer: IncomingMessage) => {
    answer.once("close", () => {
      // Node ends an answer whose socket closed before its last byte with ECONNRESET ("aborted"). An
      // answer its reader put down on purpose closes incomplete too, but without that error.
      const e = answer.errored as (Error & { code?: unknown }) | null;
      if (!answer.complete && e?.code === "ECONNRESET") onCut(e);
    });
  });
}

/** Runs `call`, telling `onCut` of any HTTP answer cut off mid-way among the requests it starts. */
export function watchCuts<T>(onCut: OnCut, call: () => T): T {
  if (!subscribed) {
    subscribe("http.client.request.start", followRequest);
    subscribed = true;
  }
  return watcher.run(onCut, call);
}

/** `request()`'s result, or a rejection with the cut's error as soon as one of its answers is cut off. */
export function failOnCut<T>(request: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    watchCuts(reject, request).then(resolve, reject);
  });
}
