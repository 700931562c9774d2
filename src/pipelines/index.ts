// Inference pipelines over trained models.
export { FillMaskPipeline, type FillMaskOptions, type FillMaskResult, type FillMaskSources, type FillMaskTokenizer } from "./fill-mask.js";
