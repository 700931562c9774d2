// What went wrong with a gs:// request, in one line that names the path and says what to do: missing
// credentials, no network, a missing bucket or a refused permission. The client library's own errors
// are long, nested, and differ by transport; these are the cases a user can act on.

const NETWORK_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/** A gs:// failure, its message one line; `cause` holds the library's error. */
export class GcsError extends Error {
  readonly code: string | number | undefined;
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "GcsError";
    this.code = errorCode(cause);
  }
}

function errorCode(e: unknown): string | number | undefined {
  for (let x = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; x && depth < 4; x = x.cause as typeof x, depth++) {
    if (typeof x.code === "string" || typeof x.code === "number") return x.code;
  }
  return undefined;
}

function networkCode(e: unknown): string | undefined {
  const code = errorCode(e);
  if (typeof code === "string" && NETWORK_CODES.has(code)) return code;
  const m = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b/.exec(String((e as Error)?.message));
  return m?.[1];
}

/**
 * The one-line description of a failed request on `path` (gs://bucket/object). For a listing, a 404
 * can only mean that the bucket is missing.
 */
export function describeGcsError(e: unknown, path: string, listing = false): string {
  if (e instanceof GcsError) return e.message;
  const message = String((e as Error)?.message ?? e);
  const bucket = /^gs:\/\/([^/]+)/.exec(path)?.[1] ?? "";
  const code = errorCode(e);
  const emulator = process.env.STORAGE_EMULATOR_HOST;
  if (/Could not load the default credentials/i.test(message) || code === 401)
    return (
      `${path}: no Google Cloud credentials were found. Set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, ` +
      "or run `gcloud auth application-default login`"
    );
  const net = networkCode(e);
  if (net)
    return (
      `${path}: cannot reach Google Cloud Storage at ${emulator ?? "storage.googleapis.com"} (${net}): ` +
      (emulator ? "is the emulator named by STORAGE_EMULATOR_HOST running?" : "check the network connection (and any proxy settings)")
    );
  if (code === 403)
    return (
      `${path}: permission denied (403): the credentials in use may not access bucket "${bucket}"; ` +
      `check its IAM roles (storage.objectAdmin to write)`
    );
  if (code === 404)
    return listing || (/bucket/i.test(message) && !/object/i.test(message))
      ? `${path}: bucket "${bucket}" does not exist (404); create it (gcloud storage buckets create gs://${bucket}) or check the name`
      : `${path}: no such object (404)`;
  return `${path}: ${message.split("\n")[0]}`;
}

/** Runs a request and turns its failure into a GcsError. */
export async function gcsCall<T>(path: string, request: () => Promise<T>, listing = false): Promise<T> {
  try {
    return await request();
  } catch (e) {
    throw new GcsError(describeGcsError(e, path, listing), e);
  }
}

let quieted = false;

/**
 * The auth library warns on stderr (MetadataLookupWarning) when it looks for the GCE metadata server
 * and cannot reach it, which is every run outside Google Cloud. The request that follows says what
 * matters (no credentials, no network) as an error, so those warnings are dropped. So is the
 * MaxListenersExceededWarning that the HTTP layer (teeny-request) raises on every download of more
 * than a few chunks: it re-pipes the response on each read, a known quirk that leaks nothing.
 */
export function quietGcsWarnings(): void {
  if (quieted) return;
  quieted = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const name = warning instanceof Error ? warning.name : undefined;
    if (type === "MetadataLookupWarning" || name === "MetadataLookupWarning") return;
    if (name === "MaxListenersExceededWarning" && /teeny-request/.test((warning as Error).stack ?? "")) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}
