// The package's "kiln/text" entry: src/text's public API (it needs no executor).
export * from "../text/index.js";
