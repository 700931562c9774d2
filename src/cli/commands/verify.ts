// `kiln verify DIR`: checks a run directory offline (the final model, every checkpoint, prepared data)
// against the digests recorded when its files were written, and lists what is damaged.
import { UsageError } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import { verifyRunDir } from "../../train/verify-run.js";
import type { Command } from "./types.js";

const FLAGS = flagTable({
  command: "verify",
  usage: "Usage: kiln verify DIR",
  positionals: "DIR",
  about: `Checks DIR offline against the digests recorded when its files were written: the model (checksums.json),
every checkpoint-N/ (checksums.json: each file, and each tensor of a safetensors file), and data prepare
outputs (DIR or its split folders: each shard read through, and its size and SHA-256 against prepare.json).
DIR can be a training run's --output-dir, one checkpoint, a model directory, or a data prepare --out.
Prints one line per part; exits 1 if anything is damaged.`,
  flags: {},
});

export const verifyCommand: Command = {
  name: "verify",
  summary: "check a run, model, checkpoint or prepared data directory against its recorded digests",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const { positionals } = flags;
    if (positionals.length !== 1) throw new UsageError(`kiln verify: give one directory (kiln verify DIR), got ${positionals.length}`);
    const dir = positionals[0]!;
    const parts = await verifyRunDir(dir);
    if (parts.length === 0) throw new Error(`${dir} holds no model, checkpoint or prepared data that Kiln can check`);
    for (const p of parts) {
      if (p.damaged.length) for (const d of p.damaged) console.log(`DAMAGED  ${p.name}: ${d}`);
      else if (p.unchecked) console.log(`unchecked  ${p.name}: ${p.unchecked}`);
      else console.log(`ok  ${p.name} (${p.ok} files)`);
    }
    const bad = parts.filter((p) => p.damaged.length > 0);
    if (bad.length)
      throw new Error(`verify: ${bad.length} of ${parts.length} parts of ${dir} are damaged (${bad.map((p) => p.name).join(", ")})`);
  },
};
