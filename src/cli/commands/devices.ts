// `kiln devices`: every registered executor, what it runs on (version, threads) and its devices, then
// the PJRT plugins the XLA executor can load: the one --pjrt-plugin / KILN_PJRT_PLUGIN names or
// discovery finds for a GPU/TPU, and XLA's CPU plugin from an xla-cpu-pjrt wheel. Each plugin is
// loaded to ask it for its PJRT API version, attributes, platform and devices, then closed.
import { discoverExecutors } from "../../index.js";
import { discoverCpuPlugin, discoverPjrtPlugin, XlaExecutor, type PjrtPluginFound } from "../../exec/xla/index.js";
import { flagTable, readFlags } from "../flags.js";
import type { Command } from "./types.js";
import { PROBE_FLAGS, printProbeCache, probeAgain } from "./devices-probe.js";

const FLAGS = flagTable({
  command: "devices",
  usage: "Usage: kiln devices [--pjrt-plugin PATH] [--probe [--preset NAME] [--precision 32|bf16-mixed|auto] …]",
  about: `Lists every executor with its version and threads, and the devices it provides; the first device listed
is the default one. Then the PJRT plugins the XLA executor can use, each with its path, the PJRT C API
version it implements, its xla_version and StableHLO versions, its platform and its devices:
  - the plugin --pjrt-plugin or KILN_PJRT_PLUGIN names, or else a GPU/TPU plugin found installed
    (a jax-cuda*-pjrt wheel, or libtpu);
  - XLA's CPU plugin from an xla-cpu-pjrt wheel (its devices are xla-cpu:N; never picked as an accelerator).
Then the executor probes cached for this CPU: which executor (and precision, for --precision auto)
\`kiln train\` picked by measurement for each model shape, in $XDG_CACHE_HOME/kiln (else ~/.cache/kiln).
Last, the GPU/TPU plugin an --accelerator auto run would use.`,
  flags: {
    "pjrt-plugin": {
      type: "string",
      value: "PATH",
      help: "the PJRT plugin (.so) to describe, and --probe's XLA CPU plugin (or env KILN_PJRT_PLUGIN)",
    },
    ...PROBE_FLAGS,
  },
});

/** One plugin, loaded and described; its client is closed again. */
function describePlugin(plugin: PjrtPluginFound): { text: string; platform?: string } {
  try {
    const x = new XlaExecutor(plugin);
    try {
      return { text: `xla: ${x.describe()}`, platform: x.platform };
    } finally {
      x.close();
    }
  } catch (err) {
    return { text: `xla: the PJRT plugin ${plugin.path} (${plugin.kind}) could not be loaded: ${(err as Error).message}` };
  }
}

export const devicesCommand: Command = {
  name: "devices",
  summary: "list the executors and their devices (the first is the default), and the PJRT plugins found",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const values = flags.values;
    for (const { executor: e, missing } of discoverExecutors()) {
      if (missing !== undefined) {
        console.log(`${e.name}: unavailable: ${missing}`); // what it needs is not here: no devices to list
        continue;
      }
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

    const pluginPath = values["pjrt-plugin"];
    const named = discoverPjrtPlugin(pluginPath ? { pluginPath } : {});
    let accelerator: string;
    if ("notFound" in named) accelerator = `none: ${named.notFound}`;
    else {
      const { text, platform } = describePlugin(named);
      console.log(text);
      accelerator =
        platform === undefined
          ? `${named.path} could not be loaded (above)`
          : platform === "cpu"
            ? `none (${named.path} is a CPU plugin)`
            : `${platform} through ${named.path}`;
    }
    const cpu = discoverCpuPlugin();
    if (cpu && ("notFound" in named || cpu.path !== named.path)) console.log(describePlugin(cpu).text);
    else if (!cpu) console.log("xla: no XLA CPU plugin (pip install xla-cpu-pjrt puts one in xla_plugins/)");
    // The probes before the summary line, which stays last.
    if (values.probe)
      await probeAgain({
        preset: values.preset,
        vocabSize: values["vocab-size"],
        batch: values["batch-size"],
        maxLength: values["max-length"],
        precision: values.precision,
        pjrtPlugin: pluginPath,
      });
    await printProbeCache();
    console.log(`GPU/TPU plugin: ${accelerator}`);
  },
};
