// A plugin's error keeps its own words; where the cause is one the user controls and the words do not
// name it, a hint follows (the message below is the CUDA plugin's, from two processes on one H200).
import test from "node:test";
import assert from "node:assert/strict";
import { PjrtError } from "../../../src/exec/xla/pjrt/errors.js";

const NCCL_DUPLICATE =
  "NCCL operation ncclCommInitRankConfig( &comm, num_ranks, nccl_unique_ids[0], rank.value(), &comm_config) failed: " +
  "invalid usage (run with NCCL_DEBUG=WARN for details). Last NCCL warning(error) log entry (may be unrelated) " +
  "'Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 60'.";

test("two processes on one GPU: NCCL's refusal keeps its words and says one process per GPU", () => {
  const e = new PjrtError("PJRT_Event_Error", 13, NCCL_DUPLICATE);
  assert.ok(e.message.startsWith(`PJRT_Event_Error failed (INTERNAL): ${NCCL_DUPLICATE}`));
  assert.match(e.message, /two processes of this run use the same GPU, and NCCL allows one process per GPU/);
  assert.equal(e.pluginMessage, NCCL_DUPLICATE);
});

test("other plugin errors get no hint", () => {
  const e = new PjrtError("PJRT_Client_Compile", 3, "error: unknown op 'stablehlo.nope'");
  assert.equal(e.message, "PJRT_Client_Compile failed (INVALID_ARGUMENT): error: unknown op 'stablehlo.nope'");
});
