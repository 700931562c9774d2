// Retrying gs:// requests that failed for a passing reason: 408, 429 and 5xx answers, connections reset
// or closed early, requests that stalled past their timeout. Each retry waits an exponentially growing,
// fully jittered delay (so that many clients do not retry in step), and an operation gives up when its
// deadline has passed. Other failures (403, 404, missing credentials, no such host) are not retried: no
// wait makes them succeed. Every retry is counted, by cause, so a run can say what the network did.
import { OptionError } from "../../core/option-error.js";
import { failOnCut } from "./cut-connections.js";

export interface GcsRetrySettings {
  /** The first retry's delay bound in milliseconds (each later one doubles it, up to `maxDelayMs`). */
  initialDelayMs: number;
  /** The largest delay bound between two tries, in milliseconds. */
  maxDelayMs: number;
  /** How long one operation (its tries and waits together) may take before it gives up, in milliseconds. */
  deadlineMs: number;
  /** A request that receives or sends nothing for this long is abandoned and tried again, in milliseconds. */
  timeoutMs: number;
  /** Objects larger than this are uploaded resumably, in chunks of this size (a multiple of 256 KiB). */
  chunkBytes: number;
}

const DEFAULTS: GcsRetrySettings = {
  initialDelayMs: 500,
  maxDelayMs: 32_000,
  deadlineMs: 300_000,
  timeoutMs: 60_000,
  chunkBytes: 8 << 20,
};

/** The environment variable that sets each setting (milliseconds, or bytes for the chunk size). */
const ENV: Record<keyof GcsRetrySettings, string> = {
  initialDelayMs: "KILN_GCS_RETRY_DELAY_MS",
  maxDelayMs: "KILN_GCS_RETRY_MAX_DELAY_MS",
  deadlineMs: "KILN_GCS_RETRY_DEADLINE_MS",
  timeoutMs: "KILN_GCS_TIMEOUT_MS",
  chunkBytes: "KILN_GCS_CHUNK_BYTES",
};

let settings: GcsRetrySettings | undefined;

/** The settings in force: the defaults, then KILN_GCS_* from the environment, then setGcsRetrySettings. */
export function gcsRetrySettings(): GcsRetrySettings {
  if (settings) return settings;
  const s = { ...DEFAULTS };
  for (const [key, name] of Object.entries(ENV) as [keyof GcsRetrySettings, string][]) {
    const raw = process.env[name];
    // A bad value is named as it was set: the variable and its text.
    if (raw !== undefined && raw !== "") s[key] = checkedValue(key, Number(raw), name, raw);
  }
  return (settings = s);
}

/** Changes some of the gs:// retry settings for the rest of the process. */
export function setGcsRetrySettings(changes: Partial<GcsRetrySettings>): GcsRetrySettings {
  const s = { ...gcsRetrySettings() };
  for (const [key, v] of Object.entries(changes) as [keyof GcsRetrySettings, number][]) {
    if (!(key in DEFAULTS))
      throw new OptionError({
        option: key,
        value: v,
        why: "is not a gs:// retry setting",
        fix: `use one of ${Object.keys(DEFAULTS).join(", ")}`,
      });
    s[key] = checkedValue(key, v, key, v);
  }
  return (settings = s);
}

function checkedValue(key: keyof GcsRetrySettings, v: number, option: string, shown: unknown): number {
  const fix = `set ${ENV[key]} or setGcsRetrySettings({ ${key} }) to a number`;
  if (typeof v !== "number" || !Number.isFinite(v) || v < (key === "initialDelayMs" ? 0 : 1))
    throw new OptionError({
      option,
      value: shown,
      why: `must be a finite number of ${key === "chunkBytes" ? "bytes" : "milliseconds"} ${key === "initialDelayMs" ? "≥ 0" : "≥ 1"}`,
      fix,
    });
  if (key === "chunkBytes" && v % (256 << 10) !== 0)
    throw new OptionError({ option, value: shown, why: "must be a multiple of 256 KiB (262144 bytes), as resumable uploads require", fix });
  return v;
}

export interface GcsRequestCounts {
  /** Operations started (a listing, a read, an upload…), each however many tries it took. */
  operations: number;
  /** Tries made again after a passing failure, all causes together. */
  retries: number;
  /** Retries by cause: an HTTP status ("503"), a socket error code ("ECONNRESET"), or "timeout". */
  byCause: Record<string, number>;
  /** Reads that went on from the byte they had reached, and uploads from the byte the server had. */
  resumedReads: number;
  resumedUploads: number;
  /** Operations that failed for good (a lasting error, or passing errors until the deadline). */
  failed: number;
}

const counts: GcsRequestCounts = { operations: 0, retries: 0, byCause: {}, resumedReads: 0, resumedUploads: 0, failed: 0 };

/** The gs:// counts of this process so far (a copy). */
export function gcsRequestCounts(): GcsRequestCounts {
  return { ...counts, byCause: { ...counts.byCause } };
}

/** Counts a resumed read or upload (the retry itself is counted by withRetries). */
export function countResumed(kind: "read" | "upload"): void {
  if (kind === "read") counts.resumedReads++;
  else counts.resumedUploads++;
}

/** One line for the end of a run: "gs://: 41 operations, 6 retries (503 ×3, ECONNRESET ×2, timeout ×1), 1 upload resumed". */
export function describeGcsRequestCounts(c: GcsRequestCounts = gcsRequestCounts()): string | undefined {
  if (c.operations === 0) return undefined;
  const causes = Object.entries(c.byCause)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([cause, n]) => `${cause} ×${n}`);
  const parts = [`${c.operations} operations`, `${c.retries} retries` + (causes.length ? ` (${causes.join(", ")})` : "")];
  if (c.resumedReads) parts.push(`${c.resumedReads} read${c.resumedReads === 1 ? "" : "s"} resumed`);
  if (c.resumedUploads) parts.push(`${c.resumedUploads} upload${c.resumedUploads === 1 ? "" : "s"} resumed`);
  if (c.failed) parts.push(`${c.failed} failed`);
  return `gs://: ${parts.join(", ")}`;
}

const STATUS_KEYS = ["code", "status", "statusCode"] as const;

/** The HTTP failure status (4xx, 5xx) of a failed request, looked for through the error's causes and response. */
function httpStatus(e: unknown): number | undefined {
  for (let x = e as Record<string, unknown> | undefined, depth = 0; x && typeof x === "object" && depth < 5; depth++) {
    for (const key of STATUS_KEYS) {
      const v = x[key];
      const n = typeof v === "number" ? v : typeof v === "string" && /^\d{3}$/.test(v) ? Number(v) : undefined;
      if (n !== undefined && n >= 400 && n < 600) return n;
    }
    // Only a failure's status counts: an error can carry the last good answer (a resumable upload's 308)
    // while its cause is the connection that broke after it.
    const response = x.response as { status?: unknown } | undefined;
    if (typeof response?.status === "number" && response.status >= 400) return response.status;
    x = x.cause as typeof x;
  }
  return undefined;
}

/**
 * Error codes of failures that a new try may not meet, and the cause each is counted as. ECONNREFUSED
 * and ENOTFOUND are not among them: no server, no host.
 */
const PASSING_CODES = new Map<string, string>([
  ["ECONNRESET", "ECONNRESET"],
  ["EPIPE", "EPIPE"],
  ["ECONNABORTED", "ECONNABORTED"],
  ["EAI_AGAIN", "EAI_AGAIN"],
  ["ERR_STREAM_PREMATURE_CLOSE", "ERR_STREAM_PREMATURE_CLOSE"],
  ["ETIMEDOUT", "timeout"],
  ["ESOCKETTIMEDOUT", "timeout"],
  // Node's fetch (undici), which asks a resumable upload for its offset: the connection closed under
  // the request, or a part of the exchange took too long.
  ["UND_ERR_SOCKET", "ECONNRESET"],
  ["UND_ERR_CONNECT_TIMEOUT", "timeout"],
  ["UND_ERR_HEADERS_TIMEOUT", "timeout"],
  ["UND_ERR_BODY_TIMEOUT", "timeout"],
]);

/**
 * Why a failure may pass if tried again, as a short cause ("503", "ECONNRESET", "timeout"), or
 * undefined when it is lasting (403, 404, no credentials, no such host, a refused connection). The
 * error and its causes are judged by what they carry (a status, a code, the timeout that ended them),
 * never by their words, which differ between the library's majors (7, 8) and its HTTP layers.
 */
export function passingCause(e: unknown): string | undefined {
  const status = httpStatus(e);
  if (status !== undefined) return status === 408 || status === 429 || status >= 500 ? String(status) : undefined;
  type Link = { code?: unknown; type?: unknown; name?: unknown; cause?: unknown };
  for (let x = e as Link | undefined, depth = 0; x && typeof x === "object" && depth < 5; depth++) {
    if (typeof x.code === "string" && PASSING_CODES.has(x.code)) return PASSING_CODES.get(x.code);
    // node-fetch's own timeouts (the library's `timeout`), and AbortSignal.timeout's end of a fetch.
    if (x.type === "request-timeout" || x.type === "body-timeout" || x.name === "TimeoutError") return "timeout";
    x = x.cause as Link | undefined;
  }
  return undefined;
}

/** The error a stalled request is abandoned with (a passing failure, "timeout"). */
export function stallError(what: string, ms: number): Error {
  return Object.assign(new Error(`${what}: nothing received or sent for ${ms} ms`), { code: "ETIMEDOUT" });
}

/**
 * `request()`'s result, or a stall error ("timeout", passing) when it has not come within `timeoutMs`,
 * or the socket's reset (ECONNRESET) as soon as one of its answers is cut off (see cut-connections.ts).
 * The library's requests take no timeout that holds (nor a signal): an abandoned one is left to end on its own.
 */
export function withinTimeout<T>(what: string, request: () => Promise<T>, timeoutMs = gcsRetrySettings().timeoutMs): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(stallError(what, timeoutMs)), timeoutMs);
  });
  const answer = failOnCut(request);
  answer.catch(() => {}); // a late failure of an abandoned request is of no interest
  return Promise.race([answer, stalled]).finally(() => clearTimeout(timer));
}

/**
 * Runs `attempt` until it succeeds, retrying passing failures after a jittered exponential delay until
 * the deadline; a lasting failure, or a passing one past the deadline, is thrown as it came.
 * `attempt` gets its try number (1, 2, …), so that a later try can go on where an earlier one stopped.
 */
export async function withRetries<T>(
  attempt: (tryNumber: number) => Promise<T>,
  { continues = false }: { /** A later part of a counted operation (a read's next chunk). */ continues?: boolean } = {},
): Promise<T> {
  const s = gcsRetrySettings();
  if (!continues) counts.operations++;
  const started = performance.now();
  for (let tryNumber = 1; ; tryNumber++) {
    try {
      return await attempt(tryNumber);
    } catch (e) {
      const cause = passingCause(e);
      // Full jitter: a uniform delay below the exponential bound.
      const delay = Math.random() * Math.min(s.maxDelayMs, s.initialDelayMs * 2 ** (tryNumber - 1));
      if (cause === undefined || performance.now() - started + delay > s.deadlineMs) {
        counts.failed++;
        throw e;
      }
      counts.retries++;
      counts.byCause[cause] = (counts.byCause[cause] ?? 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
