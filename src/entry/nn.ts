// The package's "@kiln-ml/kiln/nn" entry: src/nn's public API, named one by one (the layer's
// internals stay out), with the CPU and reference executors registered.
import "../executors.js";

export {
  dense,
  denseInit,
  layerNorm,
  layerNormInit,
  rmsNorm,
  conv1d,
  linear,
  embed,
  embeddingInit,
  selfAttention,
  paddingBias,
  groupedAttention,
  causalVisibility,
  cachedVisibility,
  writeCache,
  rotaryAngles,
  applyRotary,
  normalInit,
  KeySequence,
  DropoutSites,
  type DenseParams,
  type NormParams,
  type EmbeddingParams,
  type SelfAttentionParams,
  type RotaryAngles,
} from "../nn/index.js";
