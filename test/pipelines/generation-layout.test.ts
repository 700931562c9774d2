// The host side of generation's fixed shapes: length buckets, the error for a prompt that would run
// past the model's positions, left-padded prompt batches (positions and slot masks as transformers
// builds them), and streaming text that keeps the space a continuation starts with.
import test from "node:test";
import assert from "node:assert/strict";
import { batchBucket, bucketFor, capacityBucketFor, GenerateInputError, planShapes } from "../../src/pipelines/generation/buckets.js";
import { layOutPrompts } from "../../src/pipelines/generation/prompt-batch.js";
import { TextStream } from "../../src/pipelines/generation/text-stream.js";
import { loadTokenizer } from "../../src/text/index.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";

test("prompt buckets are powers of two from 16, the batch a power of two; the cache holds the prompt bucket and every new token", () => {
  assert.deepEqual([0, 1, 16, 17, 32, 33, 100, 128, 129].map(bucketFor), [16, 16, 16, 32, 32, 64, 128, 128, 256]);
  assert.deepEqual([1, 2, 3, 4, 5, 8, 9].map(batchBucket), [1, 2, 4, 4, 8, 8, 16]);
  // Capacity buckets: powers of two and 1.5 times them, from 16.
  assert.deepEqual(
    [0, 16, 17, 24, 25, 33, 49, 100, 129, 192, 193].map(capacityBucketFor),
    [16, 16, 24, 24, 32, 48, 64, 128, 192, 192, 256],
  );
  assert.deepEqual(planShapes([5, 9, 3], 8, 64), { batch: 4, promptLength: 16, capacity: 24 });
  assert.deepEqual(planShapes([20], 20, 64), { batch: 1, promptLength: 32, capacity: 64 });
  assert.deepEqual(planShapes([128], 64, 256), { batch: 1, promptLength: 128, capacity: 192 });
  // Slots hold left padding too: the capacity may pass the model's positions while positions do not.
  assert.deepEqual(planShapes([40], 24, 64), { batch: 1, promptLength: 64, capacity: 96 });
});

test("a prompt that would run past the model's positions is refused with the numbers and what to change", () => {
  assert.throws(
    () => planShapes([10, 50], 20, 64),
    (e: Error) =>
      e instanceof GenerateInputError &&
      e.message ===
        "generate: prompt 2 is 50 tokens; with 20 new tokens that is 70 positions, but the model has positions for 64; " +
          "ask for at most 14 new tokens or shorten the prompt",
  );
  assert.throws(() => planShapes([64], 1, 64), /the prompt is 64 tokens; .* shorten the prompt below 64 tokens/);
  assert.throws(() => planShapes([3, 0], 4, 64), /prompt 2 is empty/);
  assert.throws(() => planShapes([3], 0, 64), /maxNewTokens must be an integer ≥ 1, got 0/);
});

test("prompts are left-padded: positions count real tokens, slot masks cover them, padding rows repeat the last prompt", () => {
  const plan = { batch: 4, promptLength: 4, capacity: 8 };
  const b = layOutPrompts([[7, 8, 9], [5], [1, 2, 3, 4]], plan, 0);
  assert.deepEqual(Array.from(b.ids), [0, 7, 8, 9, 0, 0, 0, 5, 1, 2, 3, 4, 1, 2, 3, 4]);
  assert.deepEqual(Array.from(b.positions), [0, 0, 1, 2, 0, 0, 0, 0, 0, 1, 2, 3, 0, 1, 2, 3]);
  assert.deepEqual(
    Array.from(b.slotMask),
    [0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0],
  );
  assert.deepEqual(Array.from(b.nextPositions), [3, 1, 4, 4]);
});

test("streamed text: each token's piece, the continuation's first space kept, special tokens left out", async () => {
  const tokenizer = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);
  const prompt = tokenizer.encode("The state of the", { addSpecialTokens: false });
  const continuation = tokenizer.encode("Union is strong", { addSpecialTokens: false });
  const stream = new TextStream(tokenizer, prompt);
  const pieces = [...continuation, tokenizer.sepId].map((id) => stream.push(id));
  assert.equal(pieces.join(""), " Union is strong");
  assert.equal(stream.text, " Union is strong");
  assert.equal(pieces.at(-1), "", "the end-of-sequence token adds no text");
  assert.equal(stream.flush(), "");
});
