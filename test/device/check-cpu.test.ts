// The device check (scripts/device/check.sh) from the repository checkout, as a GPU machine with a clone
// would run it: --platform cpu on XLA's CPU plugin, tiny shapes. The sections whose inputs differ from a
// bundle's run here: 1 (the plugin found from the checkout) and 3 (the data made in a temporary directory
// and the CPU reference recorded on the spot, then compared). The whole check, all six sections with their
// figures, runs from a bundle in bundle.test.ts.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";
import { pythonSkip } from "../helpers/python.js";
import { assertCpuCheckReport, type CheckReport } from "../helpers/device-check-report.js";
import { tempDir } from "../helpers/temp-dir.js";

test(
  "check.sh --platform cpu --sections 1,3 from the checkout: the devices, and 20 steps against a reference it records",
  {
    skip: pythonSkip,
    timeout: 6 * 60_000,
  },
  () => {
    const root = repoRoot();
    const out = tempDir("kiln-check-cpu-");
    try {
      const r = spawnSync("bash", [join(root, "scripts", "device", "check.sh"), "--platform", "cpu", "--sections", "1,3", "--out", out], {
        cwd: root,
        encoding: "utf8",
        timeout: 5 * 60_000,
      });
      const log = existsSync(join(out, "check.log")) ? readFileSync(join(out, "check.log"), "utf8") : "";
      const why = () => `${r.stderr}\n--- check.log (end) ---\n${log.slice(-6000)}`;
      const report = JSON.parse(readFileSync(join(out, "gpu-report.json"), "utf8")) as CheckReport;
      assertCpuCheckReport(report, ["1 devices", "3 equivalence"], why);
      const md = readFileSync(join(out, "gpu-report.md"), "utf8");
      for (const n of ["1 devices", "3 equivalence"]) assert.ok(md.includes(`## ${n}: `), `gpu-report.md has no section ${n}`);
      assert.equal(r.status, 0, `check.sh exit status ${r.status}\n${why()}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);
