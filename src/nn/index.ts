// Building blocks of models: layers, attention, initializers.
export * from "./layers.js";
export { selfAttention, paddingBias, type SelfAttentionParams } from "./attention.js";
export { normalInit, zerosInit, onesInit, KeySequence } from "./init.js";
export { DropoutSites } from "./dropout-sites.js";
