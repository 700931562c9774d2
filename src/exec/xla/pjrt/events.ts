// PJRT events as promises. One libuv worker thread at a time blocks in PJRT_Event_Await on the oldest
// pending event; when it returns, every other pending event is checked with PJRT_Event_IsReady.
// This keeps the JS thread free, wakes up as soon as work finishes (no polling timer), and holds
// a single thread of libuv's pool (file I/O keeps the rest). Plugin callbacks (PJRT_Event_OnReady)
// are not used: they run on plugin threads that would have to block until the JS thread is free.
import type { PjrtApi } from "./api.js";
import { NativeStruct } from "./native.js";
import { S } from "./structs.js";

/** A PJRT event being waited for; its state changes synchronously when the event is seen ready. */
export class WatchedEvent {
  state: "pending" | "done" | "failed" = "pending";
  error: Error | undefined;
  readonly promise: Promise<void>;
  /** The worker thread is inside PJRT_Event_Await on it: it may not be destroyed yet. */
  awaited = false;
  private resolve!: () => void;
  private reject!: (e: Error) => void;

  constructor(
    readonly event: bigint,
    readonly what: string,
  ) {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Failures are reported to whoever awaits the promise; nobody awaiting is not an error.
    this.promise.catch(() => {});
  }

  settle(error: Error | null): void {
    if (this.state !== "pending") return;
    if (error) {
      this.state = "failed";
      this.error = new Error(`${this.what}: ${error.message}`, { cause: error });
      this.reject(this.error);
    } else {
      this.state = "done";
      this.resolve();
    }
  }

  /** Throws the event's error if it failed. */
  check(): void {
    if (this.error) throw this.error;
  }
}

export class EventWaiter {
  private readonly pending: WatchedEvent[] = [];
  private working = false;

  constructor(private readonly api: PjrtApi) {}

  /** Takes ownership of a PJRT_Event: it is destroyed once ready; `what` names it in errors. No event (0) is ready now. */
  watch(event: bigint, what: string): WatchedEvent {
    const w = new WatchedEvent(event, what);
    if (!event) {
      w.settle(null);
      return w;
    }
    this.pending.push(w);
    this.pump();
    return w;
  }

  /** Blocks the calling (JS) thread until the event is ready; for synchronous reads only. */
  awaitNow(w: WatchedEvent): void {
    if (w.state !== "pending") return;
    this.settle(w, this.failureOf("PJRT_Event_Await", w.event));
  }

  /** Blocks until every watched event is ready (before the client goes away); failures stay with their events. */
  awaitAll(): void {
    for (const w of Array.from(this.pending)) this.awaitNow(w);
  }

  /** Calls an event function that returns the event's status: null when it succeeded. */
  private failureOf(fn: "PJRT_Event_Await" | "PJRT_Event_Error", event: bigint): Error | null {
    try {
      this.api.run(fn, fn === "PJRT_Event_Await" ? S.Event_Await : S.Event_Error, (a) => a.set("event", event));
      return null;
    } catch (e) {
      return e as Error;
    }
  }

  private settle(w: WatchedEvent, error: Error | null): void {
    w.settle(error);
    this.release(w);
  }

  /** Destroys a settled event once no worker is inside PJRT_Event_Await on it. */
  private release(w: WatchedEvent): void {
    if (w.state === "pending" || w.awaited) return;
    const i = this.pending.indexOf(w);
    if (i < 0) return;
    this.pending.splice(i, 1);
    this.api.run("PJRT_Event_Destroy", S.Event_Destroy, (a) => a.set("event", w.event));
  }

  /** Settles every pending event that is ready now. */
  private sweep(): void {
    for (const w of Array.from(this.pending)) {
      if (w.state !== "pending" || w.awaited) continue;
      const ready = this.api.call("PJRT_Event_IsReady", S.Event_IsReady, (a) => a.set("event", w.event));
      const isReady = ready.bool("is_ready");
      ready.free();
      if (isReady) this.settle(w, this.failureOf("PJRT_Event_Error", w.event));
    }
  }

  private pump(): void {
    if (this.working) return;
    const next = this.pending.find((w) => w.state === "pending");
    if (!next) return;
    this.working = true;
    next.awaited = true;
    const args = new NativeStruct(S.Event_Await).set("event", next.event);
    const finished = (failure: Error | null) => {
      args.free();
      next.awaited = false;
      this.settle(next, failure); // releases it too when it was settled meanwhile by awaitNow
      try {
        this.sweep();
      } catch (e) {
        for (const w of Array.from(this.pending)) if (w.state === "pending" && !w.awaited) this.settle(w, e as Error);
      }
      this.working = false;
      this.pump();
    };
    this.api.callOnWorker("PJRT_Event_Await", args).then(
      (error) => finished(error ? this.api.takeError("PJRT_Event_Await", error) : null),
      (e: unknown) => finished(e instanceof Error ? e : new Error(String(e))),
    );
  }
}
