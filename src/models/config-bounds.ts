// Upper bounds on the sizes a config.json gives, checked before anything is sized from them: a damaged or
// hostile file (`"hidden_size": 1e12`) is refused with its field named, instead of a model that tries to
// allocate terabytes or trace a million layers. The bounds sit far above every published model.
const FIELD_LIMITS: Record<string, number> = {
  vocab_size: 2 ** 24,
  type_vocab_size: 2 ** 16,
  hidden_size: 2 ** 17,
  n_embd: 2 ** 17,
  intermediate_size: 2 ** 20,
  n_inner: 2 ** 20,
  num_hidden_layers: 2 ** 12,
  n_layer: 2 ** 12,
  num_attention_heads: 2 ** 12,
  num_key_value_heads: 2 ** 12,
  n_head: 2 ** 12,
  head_dim: 2 ** 14,
  max_position_embeddings: 2 ** 24,
  n_positions: 2 ** 24,
  n_ctx: 2 ** 24,
};

/** The most elements one weight matrix may have (8 GiB of f32): beyond it no host array can hold it. */
const MAX_MATRIX_ELEMENTS = 2 ** 31;

/** The largest weight matrices, as products of the fields that shape them (under either family's names). */
const MATRICES: [rows: string[], cols: string[], what: string][] = [
  [["vocab_size"], ["hidden_size", "n_embd"], "the token embeddings"],
  [["max_position_embeddings", "n_positions"], ["hidden_size", "n_embd"], "the position embeddings"],
  [["intermediate_size", "n_inner"], ["hidden_size", "n_embd"], "an MLP weight"],
];

/** Refuses size fields of `raw` (a config.json's object) beyond the bounds above; other checks are the family's. */
export function checkConfigBounds(raw: Record<string, unknown>, where: string): void {
  for (const [field, limit] of Object.entries(FIELD_LIMITS)) {
    const v = raw[field];
    if (typeof v === "number" && v > limit)
      throw new Error(
        `${where}: "${field}" is ${v}, over the ${limit} Kiln accepts; a config.json with sizes this large is damaged ` +
          `or not a model's config`,
      );
  }
  const size = (names: string[]) => {
    const v = names.map((n) => raw[n]).find((x) => typeof x === "number");
    return typeof v === "number" && v > 0 ? v : 1;
  };
  for (const [rows, cols, what] of MATRICES) {
    const n = size(rows) * size(cols);
    if (n > MAX_MATRIX_ELEMENTS)
      throw new Error(
        `${where}: ${what} would be ${size(rows)} × ${size(cols)} = ${n} values, over the ${MAX_MATRIX_ELEMENTS} one weight may hold; ` +
          `lower ${rows[0]} or ${cols[0]}`,
      );
  }
}
