// Exporting trained models for serving.
export {
  exportModel,
  EXPORT_FORMATS,
  EXPORT_PRECISIONS,
  EXPORTABLE_MODEL_TYPES,
  type ExportOptions,
  type ExportResult,
} from "./export-model.js";
