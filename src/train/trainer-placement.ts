// Where a Trainer runs: its devices and strategy (given, selected from accelerator/devices/executor, or
// the default device), and the processes it trains with. Across processes, MPI sums the gradients of
// CPU executors (ONNX Runtime, XLA:CPU, whose plugins have no cross-process collectives); GPUs and TPUs
// use XLA's own collectives through PJRT: the step is one program over every process's devices, and
// the rest (barriers, agreements) goes through the coordination store.
import * as k from "../core/index.js";
import { launchedAcceleratorPlace, selectDevices } from "../distribute/devices.js";
import { makeStrategy, type Strategy } from "../distribute/strategy.js";
import { acceleratorProcessPlace, joinAcceleratorGroup, joinProcessGroup, type ProcessGroup } from "../distribute/multi-process.js";
import type { TrainerOptions } from "./trainer-options.js";

export function placeTrainer(options: TrainerOptions): { strategy: Strategy; group: ProcessGroup | undefined } {
  // A launched GPU/TPU process needs the store before its client (made for all processes) is created.
  const selects = typeof options.strategy !== "object" && (options.accelerator ?? options.devices ?? options.executor) !== undefined;
  const launched = selects
    ? launchedAcceleratorPlace({
        accelerator: options.accelerator ?? "auto",
        ...(options.pjrtPlugin ? { pjrtPlugin: options.pjrtPlugin } : {}),
      })
    : undefined;
  if (launched && !options.coordinationStore) missingStore(launched.place);
  const devices =
    typeof options.strategy === "object"
      ? options.strategy.devices
      : options.accelerator === undefined && options.devices === undefined && options.executor === undefined
        ? [k.getDefaultDevice()]
        : selectDevices({
            accelerator: options.accelerator ?? "auto",
            devices: options.devices ?? "auto",
            ...(options.executor ? { executor: options.executor } : {}),
            ...(options.pjrtPlugin ? { pjrtPlugin: options.pjrtPlugin } : {}),
            ...(options.notice ? { notice: options.notice } : {}),
          });
  const strategy = makeStrategy(options.strategy ?? "auto", devices);
  const platform = strategy.devices[0]!.platform;
  if (platform === "cpu")
    return { strategy, group: joinProcessGroup(options.numNodes !== undefined ? { expected: options.numNodes } : {}) };
  const place = acceleratorProcessPlace(platform, options.numNodes);
  if (place && !strategy.global)
    throw new Error(
      `this process is rank ${place.rank} of ${place.size}, but its devices (${strategy.devices.map((d) => d.id).join(", ")}) ` +
        `belong to an XLA client for this process alone: give accelerator: "${platform}" (or selectDevices with it) in ` +
        `the launched process, which makes the client for all ${place.size}`,
    );
  if (place && !options.coordinationStore) missingStore(place);
  return { strategy, group: place ? joinAcceleratorGroup(place, options.coordinationStore!) : undefined };
}

function missingStore(place: { rank: number; size: number; coordinator: { host: string; port: number } }): never {
  throw new Error(
    `this process is rank ${place.rank} of ${place.size}: give the Trainer coordinationStore, the run's coordination store ` +
      `(await StoreClient.connect({ host: "${place.coordinator.host}", port: ${place.coordinator.port} }) from kiln/launch, ` +
      `KILN_COORDINATOR's address)`,
  );
}
