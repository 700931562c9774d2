// The package's "kiln/pipelines" entry: src/pipelines's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../pipelines/index.js";
