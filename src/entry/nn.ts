// The package's "kiln/nn" entry: src/nn's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../nn/index.js";
