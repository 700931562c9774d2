// Building blocks of models: layers, attention, initializers.
export * from "./layers.js";
export { selfAttention, paddingBias, type SelfAttentionParams } from "./attention.js";
export { causalVisibility, cachedVisibility, writeCache, groupedAttention, type AttentionDropout } from "./causal-attention.js";
export { blockwiseAttention, type BlockwiseAttentionOptions } from "./blockwise-attention.js";
export { ropeInverseFrequencies, rotaryAngles, applyRotary, type RotaryAngles } from "./rotary.js";
export { normalInit, zerosInit, onesInit, KeySequence } from "./init.js";
export { DropoutSites } from "./dropout-sites.js";
