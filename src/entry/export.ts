// The package's "kiln/export" entry: src/export's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../export/index.js";
