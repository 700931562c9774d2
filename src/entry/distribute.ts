// The package's "kiln/distribute" entry: src/distribute's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../distribute/index.js";
