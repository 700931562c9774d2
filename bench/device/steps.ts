// The equivalence check of a GPU run (issue 26, check section 3): the same 20 f32 training steps of a
// small masked LM and a small causal LM, recorded once on the CPU with ONNX Runtime and replayed on XLA.
//   node dist/bench/device/steps.js record --data DATA_DIR --out FILE
//   node dist/bench/device/steps.js compare --reference FILE --data DATA_DIR --platform gpu|cpu [--pjrt-plugin P]
// `compare` prints one JSON line per task ({"bench":"steps","task":…,"maxRelDiff":…,"pass":…}) and
// exits 1 when a task fails (a loss outside the tolerance of steps-compare.ts, or a run that stops).
import { parseArgs } from "node:util";
import * as k from "../../src/index.js";
import { LOSS_RTOL, worstStep, type StepsComparison } from "./steps-compare.js";
import { checkSameData, dataFingerprint, readReference, REFERENCE_FORMAT, writeReference, type RecordedTask } from "./steps-reference.js";
import { runStepTask, STEP_TASKS, type DeviceChoice } from "./steps-tasks.js";

const USAGE = `usage:
  node dist/bench/device/steps.js record --data DATA_DIR --out FILE
  node dist/bench/device/steps.js compare --reference FILE --data DATA_DIR --platform gpu|cpu [--pjrt-plugin PATH]
DATA_DIR holds tokenizer/ and shards/train/ (kiln tokenizer train, kiln data prepare): the bundle's data/.`;

class UsageError extends Error {}

function flags(argv: string[], spec: Record<string, { type: "string" }>, required: string[]): Record<string, string> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false }) as { values: Record<string, string> });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  for (const name of required) if (values[name] === undefined) throw new UsageError(`--${name} is required`);
  return values as Record<string, string>;
}

async function record(argv: string[]): Promise<void> {
  const v = flags(argv, { data: { type: "string" }, out: { type: "string" } }, ["data", "out"]);
  const data = dataFingerprint(v.data!);
  const cpu: DeviceChoice = { accelerator: "cpu", executor: "ort" };
  const tasks: RecordedTask[] = [];
  for (const t of STEP_TASKS) {
    const { losses } = await runStepTask(t, v.data!, cpu);
    if (losses.some((l) => !Number.isFinite(l))) throw new Error(`${t.task}: a loss is not finite on the CPU: [${losses.join(", ")}]`);
    tasks.push({ ...t, losses });
    console.error(`${t.task} (${t.preset}): loss ${losses[0]!.toFixed(4)} → ${losses.at(-1)!.toFixed(4)} over ${t.steps} steps`);
  }
  await writeReference(v.out!, {
    format: REFERENCE_FORMAT,
    recordedOn: { executor: "ort", device: "cpu:0", version: `ONNX Runtime ${k.ortExecutor.version()}`, node: process.version },
    data,
    tasks,
  });
  console.error(`wrote ${v.out}`);
}

async function compare(argv: string[]): Promise<boolean> {
  const v = flags(
    argv,
    { reference: { type: "string" }, data: { type: "string" }, platform: { type: "string" }, "pjrt-plugin": { type: "string" } },
    ["reference", "data", "platform"],
  );
  const platform = v.platform!;
  if (platform !== "gpu" && platform !== "cpu") throw new UsageError(`--platform must be gpu or cpu, got "${platform}"`);
  const ref = readReference(v.reference!);
  checkSameData(ref, v.reference!, v.data!);
  const plugin = v["pjrt-plugin"] ? { pjrtPlugin: v["pjrt-plugin"] } : {};
  const choice: DeviceChoice = platform === "gpu" ? { accelerator: "gpu", ...plugin } : { accelerator: "cpu", executor: "xla", ...plugin };
  let allPass = true;
  for (const t of ref.tasks) {
    const started = performance.now();
    let line: StepsComparison | (Record<string, unknown> & { pass: false });
    try {
      const { losses, device, compileSeconds } = await runStepTask(t, v.data!, choice);
      const worst = worstStep(losses, t.losses);
      line = {
        bench: "steps",
        task: t.task,
        preset: t.preset,
        steps: t.steps,
        ...worst,
        tolerance: LOSS_RTOL,
        pass: worst.maxRelDiff <= LOSS_RTOL,
        platform,
        device,
        reference: `${ref.recordedOn.executor} ${ref.recordedOn.device}`,
        firstLoss: losses[0]!,
        lastLoss: losses.at(-1)!,
        compileSeconds: Number(compileSeconds.toFixed(1)),
        seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      };
    } catch (e) {
      // A run that cannot finish (no device, a compile error, a NaN loss) is a failed comparison, reported like one.
      line = {
        bench: "steps",
        task: t.task,
        preset: t.preset,
        steps: t.steps,
        tolerance: LOSS_RTOL,
        pass: false,
        platform,
        error: (e as Error).message,
      };
    }
    console.log(JSON.stringify(line));
    allPass &&= line.pass;
  }
  return allPass;
}

const [sub, ...rest] = process.argv.slice(2);
try {
  if (sub === "record") await record(rest);
  else if (sub === "compare") process.exitCode = (await compare(rest)) ? 0 : 1;
  else if (sub === "--help" || sub === "-h") console.log(USAGE);
  else throw new UsageError(sub === undefined ? "a subcommand is required" : `unknown subcommand "${sub}"`);
} catch (e) {
  console.error(`steps.js: ${(e as Error).message}${e instanceof UsageError ? `\n${USAGE}` : ""}`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
}
