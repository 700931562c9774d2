// The package's "kiln/train" entry: src/train's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../train/index.js";
