// The engine, the executors (registered on import; the first, cpu:0 on ONNX Runtime, is the default
// device) and the package's root entry's names in one module, for the CLI and the tests. The package's
// entries, named one by one, are in src/entry/: "@kiln-ml/kiln" (src/entry/index.ts), "@kiln-ml/kiln/core",
// and one per layer.
export * from "./executors.js";
export * from "./core/index.js";
export * from "./entry/index.js";
