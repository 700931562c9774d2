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
    super(`${fn} failed (${codeName}): ${pluginMessage}`);
    this.name = "PjrtError";
    this.codeName = codeName;
  }
}
