// `kiln devices`: every registered executor, what it runs on (version, threads) and its devices.
import { registeredExecutors } from "../../index.js";
import { parseFlags } from "../args.js";
import { loadAcceleratorExecutor } from "../../distribute/devices.js";
import type { Command } from "./types.js";

export const devicesCommand: Command = {
  name: "devices",
  summary: "list the executors and their devices (the first is the default)",
  run(argv) {
    const { values } = parseFlags("devices", argv, { help: { type: "boolean", short: "h" }, "pjrt-plugin": { type: "string" } });
    if (values.help) {
      console.log(
        "Usage: kiln devices [--pjrt-plugin PATH]\n\nLists every executor with its version and threads, and the devices it provides, including a GPU/TPU\nPJRT plugin when one is found (--pjrt-plugin, KILN_PJRT_PLUGIN, a jax-cuda*-pjrt wheel, or libtpu).\nThe first device listed is the default one.",
      );
      return;
    }
    let accelerator: string;
    try {
      const acc = loadAcceleratorExecutor(values["pjrt-plugin"]);
      accelerator = acc.executor ? `found (${acc.executor.name})` : `none: ${acc.notFound}`;
    } catch (err) {
      accelerator = `a plugin was found but could not be loaded: ${(err as Error).message}`;
    }
    for (const e of registeredExecutors()) {
      let about: string;
      try {
        about = e.describe();
      } catch (err) {
        about = `unavailable: ${(err as Error).message}`;
      }
      console.log(`${e.name}: ${about}`);
      console.log(
        `  devices: ${e
          .devices()
          .map((d) => d.id)
          .join(", ")}`,
      );
    }
    console.log(`GPU/TPU plugin: ${accelerator}`);
  },
};
