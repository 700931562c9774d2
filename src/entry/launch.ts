// The package's "kiln/launch" entry: src/launch's public API (the coordination store, the process
// environment, the supervisor and launch(fn)). It computes nothing, so it registers no executor.
export * from "../launch/index.js";
