// The package's "kiln/models" entry: src/models's public API, with the CPU and reference executors registered.
import "../executors.js";

export * from "../models/index.js";
