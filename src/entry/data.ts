// The package's "kiln/data" entry: src/data's public API (it needs no executor).
export * from "../data/index.js";
