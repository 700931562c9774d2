// What a device check's gpu-report.json (scripts/device/check.sh) must hold for the sections it ran on
// XLA's CPU plugin with tiny shapes: each passed, with the figures that section exists for. Shared by the
// run from the checkout (test/device/check-cpu.test.ts) and the run from a bundle (bundle.test.ts).
import assert from "node:assert/strict";

export interface CheckSection {
  name: string;
  status: string;
  seconds: number;
  note?: string | null;
  figures: unknown;
}

export interface CheckReport {
  platform: string;
  machine: Record<string, unknown>;
  sections: CheckSection[];
}

export const CHECK_SECTIONS = ["1 devices", "2 device suite", "3 equivalence", "4 throughput", "5 generation", "6 main job"];

/** Asserts that the report has exactly `names`, each passed with its figures; `why` adds the log to a failure. */
export function assertCpuCheckReport(report: CheckReport, names: readonly string[], why: () => string): void {
  assert.equal(report.platform, "cpu");
  assert.ok(report.machine.node, "the machine facts name the Node that ran the check");
  assert.deepEqual(
    report.sections.map((s) => s.name),
    names,
    why(),
  );
  for (const s of report.sections) assert.equal(s.status, "passed", `${s.name}: ${s.status} (${s.note ?? ""})\n${why()}`);
  const figures = (n: string) => report.sections.find((s) => s.name === n)?.figures;

  const devices = figures("1 devices") as { platform: string; devices: { id: string }[]; pjrt_api: string } | undefined;
  if (devices) {
    assert.equal(devices.platform, "cpu");
    assert.equal(devices.devices[0]!.id, "xla-cpu:0");
    assert.match(devices.pjrt_api, /^0\.\d+$/);
  }

  const suite = figures("2 device suite") as { passed: number; failed: number } | undefined;
  if (suite) assert.ok(suite.passed >= 100 && suite.failed === 0, JSON.stringify(suite));

  const steps = figures("3 equivalence") as { task: string; pass: boolean; steps: number; device: string }[] | undefined;
  if (steps) {
    assert.deepEqual(
      steps.map((s) => s.task),
      ["mlm", "causal-lm"],
    );
    assert.ok(
      steps.every((s) => s.pass && s.steps === 20 && s.device === "xla-cpu:0"),
      JSON.stringify(steps),
    );
  }

  const throughput = figures("4 throughput") as
    | {
        matmul_peaks: { bf16_tflops: number; f32_tflops: number };
        groups: {
          task: string;
          complete: boolean;
          contenders: { contender: string; tokens_per_s: number; rounds: number[]; batch: number }[];
        }[];
      }
    | undefined;
  if (throughput) {
    assert.ok(throughput.matmul_peaks.f32_tflops > 0 && throughput.matmul_peaks.bf16_tflops > 0);
    assert.deepEqual(
      throughput.groups.map((g) => g.task),
      ["mlm", "causal-lm"],
    );
    for (const g of throughput.groups) {
      assert.ok(g.complete, JSON.stringify(g));
      for (const c of g.contenders) assert.ok(c.tokens_per_s > 0 && c.rounds.length === 2 && c.batch === 8, JSON.stringify(c));
    }
    assert.deepEqual(throughput.groups[0]!.contenders.map((c) => c.contender).sort(), ["jax", "kiln", "kiln-head-all", "torch-eager"]);
  }

  const generation = figures("5 generation") as { batch: number; same_tokens: boolean; decode_tokens_per_second: number }[] | undefined;
  if (generation) {
    assert.deepEqual(
      generation.map((g) => g.batch),
      [1, 8],
    );
    assert.ok(generation.every((g) => g.same_tokens && g.decode_tokens_per_second > 0));
  }

  const main = figures("6 main job") as { device: string; steps: number; final_eval_accuracy: number } | undefined;
  if (main) {
    assert.equal(main.device, "xla-cpu:0");
    assert.equal(main.steps, 30);
    assert.ok(main.final_eval_accuracy > 0);
  }
}
