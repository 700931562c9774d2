// `kiln devices`: every registered executor, what it runs on (version, threads) and its devices.
import { registeredExecutors } from "../../index.js";
import { parseFlags } from "../args.js";
import type { Command } from "./types.js";

export const devicesCommand: Command = {
  name: "devices",
  summary: "list the executors and their devices (the first is the default)",
  run(argv) {
    const { values } = parseFlags("devices", argv, { help: { type: "boolean", short: "h" } });
    if (values.help) {
      console.log("Usage: kiln devices\n\nLists every executor with its version and threads, and the devices it provides.\nThe first device listed is the default one.");
      return;
    }
    for (const e of registeredExecutors()) {
      let about: string;
      try {
        about = e.describe();
      } catch (err) {
        about = `unavailable: ${(err as Error).message}`;
      }
      console.log(`${e.name}: ${about}`);
      console.log(`  devices: ${e.devices().map((d) => d.id).join(", ")}`);
    }
  },
};
