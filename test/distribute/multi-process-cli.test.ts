// `kiln train` unchanged under `mpirun -n 4`: 4 processes × 1 replica train the causal LM with evaluation
// to the losses and eval loss of `kiln train --devices 4` in one process, only rank 0 writes the output
// directory and prints the result, and the other ranks' lines carry their rank.
import test from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { kiln, kilnCli as cli, prepareTinyCausalData, tinyCausalTrainArgs } from "../helpers/tiny-causal-cli.js";
import { maxRelative, mpiRun, mpiSkip, stepLosses } from "../helpers/mpi-launcher.js";
import { tempDir } from "../helpers/temp-dir.js";

test("mpirun -n 4 kiln train equals kiln train --devices 4", { skip: mpiSkip, timeout: 300_000 }, async () => {
  const root = tempDir("kiln-mpi-cli-");
  const data = prepareTinyCausalData(root);
  const train = (out: string) => tinyCausalTrainArgs(data, out);
  const one = kiln(...train(join(root, "one")), "--devices", "4");
  const four = await mpiRun(4, [cli, ...train(join(root, "four"))], { timeoutMs: 200_000 });
  assert.equal(four.code, 0, four.stdout + four.stderr);

  const losses = stepLosses(join(root, "four"));
  assert.equal(losses.length, 4);
  assert.ok(maxRelative(losses, stepLosses(join(root, "one"))) <= 1e-6, `${losses} vs ${stepLosses(join(root, "one"))}`);
  const result = (stdout: string) => stdout.split("\n").filter((l) => l.startsWith("{"));
  assert.equal(result(four.stdout).length, 1, `one result line (rank 0's):\n${four.stdout}`);
  const [a, b] = [JSON.parse(result(four.stdout)[0]!), JSON.parse(result(one.stdout)[0]!)];
  assert.ok(Math.abs(a.eval_loss - b.eval_loss) <= 1e-6 * b.eval_loss, `eval loss ${a.eval_loss} vs ${b.eval_loss}`);
  assert.ok(readdirSync(join(root, "four")).includes("model.safetensors"));
  for (const line of four.stderr.split("\n").filter((l) => l.includes("checked")))
    assert.match(line, /^(\[rank [123]\] )?kiln train: checked/, "a rank's line without its prefix");
  assert.equal(four.stderr.split("\n").filter((l) => /^\[rank [123]\] kiln train: checked/.test(l)).length, 3);
});
