// The package's "kiln/optim" entry: src/optim's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../optim/index.js";
