// PJRT_Error_Code values by name (pjrt_c_api.h; absl::StatusCode's numbering).
import { CODE_NAMES } from "../pjrt/errors.js";

export const PJRT_ERROR_CODES: Readonly<Record<string, number>> = Object.fromEntries(CODE_NAMES.map((name, code) => [name, code]));
