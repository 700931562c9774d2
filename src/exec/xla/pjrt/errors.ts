// Errors a plugin returned, with its own message and status code.

/** PJRT_Error_Code names, indexed by code. */
export const CODE_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/**
 * What to do about a plugin message whose cause the user controls and the message does not name. NCCL's
 * "Duplicate GPU detected" comes at the first collective when two processes share one GPU (seen on an
 * H200 with the CUDA plugin 0.11.2): NCCL allows one process per GPU.
 */
export function hintFor(pluginMessage: string): string {
  if (/Duplicate GPU detected/.test(pluginMessage))
    return (
      " — two processes of this run use the same GPU, and NCCL allows one process per GPU: start at most as many" +
      " processes on a host as it has GPUs (each takes the GPU of its local rank, or CUDA_VISIBLE_DEVICES gives each its own)"
    );
  return "";
}

/** An error a PJRT call returned: the function, the status code and its message. */
export class PjrtError extends Error {
  /** The status code name, e.g. "INVALID_ARGUMENT". */
  readonly codeName: string;

  constructor(
    readonly fn: string,
    readonly code: number,
    readonly pluginMessage: string,
  ) {
    const codeName = CODE_NAMES[code] ?? `code ${code}`;
    super(`${fn} failed (${codeName}): ${pluginMessage}${hintFor(pluginMessage)}`);
    this.name = "PjrtError";
    this.codeName = codeName;
  }
}
