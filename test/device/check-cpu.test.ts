// The device check (scripts/device/check.sh) run as CI runs it: --platform cpu from the repository checkout,
// XLA's CPU plugin, tiny shapes. Every section must be in gpu-report.json and have passed, with the figures
// each section exists for; the equivalence section (the steps.js of the bundle) may only be "not run" where
// dist/bench/device/steps.js is not built.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";
import { pythonSkip } from "../helpers/python.js";

interface Section {
  name: string;
  status: string;
  seconds: number;
  note?: string | null;
  figures: unknown;
}

const SECTIONS = ["1 devices", "2 device suite", "3 equivalence", "4 throughput", "5 generation", "6 main job"];

test("check.sh --platform cpu: every section reports, and passes", { skip: pythonSkip, timeout: 12 * 60_000 }, () => {
  const root = repoRoot();
  const out = mkdtempSync(join(tmpdir(), "kiln-check-cpu-"));
  try {
    const r = spawnSync("bash", [join(root, "scripts", "device", "check.sh"), "--platform", "cpu", "--out", out], {
      cwd: root,
      encoding: "utf8",
      timeout: 11 * 60_000,
    });
    const log = existsSync(join(out, "check.log")) ? readFileSync(join(out, "check.log"), "utf8") : "";
    const report = JSON.parse(readFileSync(join(out, "gpu-report.json"), "utf8")) as {
      platform: string;
      machine: Record<string, unknown>;
      sections: Section[];
    };
    const why = () => `${r.stderr}\n--- check.log (end) ---\n${log.slice(-6000)}`;
    assert.equal(report.platform, "cpu");
    assert.ok(report.machine.node, "the machine facts name the Node that ran the check");
    assert.deepEqual(
      report.sections.map((s) => s.name),
      SECTIONS,
      why(),
    );
    const section = (n: string) => report.sections.find((s) => s.name === n)!;
    const stepsBuilt = existsSync(join(root, "dist", "bench", "device", "steps.js"));
    for (const s of report.sections) {
      if (s.name === "3 equivalence" && !stepsBuilt) assert.match(s.note ?? "", /not run: steps\.js missing/);
      else assert.equal(s.status, "passed", `${s.name}: ${s.status} (${s.note ?? ""})\n${why()}`);
    }

    const devices = section("1 devices").figures as { platform: string; devices: { id: string }[]; pjrt_api: string };
    assert.equal(devices.platform, "cpu");
    assert.equal(devices.devices[0]!.id, "xla-cpu:0");
    assert.match(devices.pjrt_api, /^0\.\d+$/);

    const suite = section("2 device suite").figures as { passed: number; failed: number };
    assert.ok(suite.passed >= 100 && suite.failed === 0, JSON.stringify(suite));

    if (stepsBuilt) {
      const steps = section("3 equivalence").figures as { task: string; pass: boolean }[];
      assert.ok(steps.length >= 2 && steps.every((s) => s.pass), JSON.stringify(steps));
    }

    const throughput = section("4 throughput").figures as {
      matmul_peaks: { bf16_tflops: number; f32_tflops: number };
      groups: {
        task: string;
        complete: boolean;
        contenders: { contender: string; tokens_per_s: number; rounds: number[]; batch: number }[];
      }[];
    };
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

    const generation = section("5 generation").figures as { batch: number; same_tokens: boolean; decode_tokens_per_second: number }[];
    assert.deepEqual(
      generation.map((g) => g.batch),
      [1, 8],
    );
    assert.ok(generation.every((g) => g.same_tokens && g.decode_tokens_per_second > 0));

    const main = section("6 main job").figures as { device: string; steps: number; final_eval_accuracy: number };
    assert.equal(main.device, "xla-cpu:0");
    assert.equal(main.steps, 30);
    assert.ok(main.final_eval_accuracy > 0);

    const md = readFileSync(join(out, "gpu-report.md"), "utf8");
    for (const n of SECTIONS) assert.ok(md.includes(`## ${n}: `), `gpu-report.md has no section ${n}`);
    assert.equal(r.status, 0, `check.sh exit status ${r.status}\n${why()}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
