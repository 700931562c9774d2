// The package's "@kiln-ml/kiln/export" entry: src/export's public API, named one by one (the layer's
// internals stay out), with the CPU and reference executors registered.
import "../executors.js";

export { exportModel, EXPORT_FORMATS, type ExportOptions, type ExportResult } from "../export/index.js";
