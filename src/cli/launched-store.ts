// The coordination store a command passes to a Trainer when `kiln launch` started it to train on GPUs/TPUs
// as one of several processes (KILN_COORDINATOR names it); undefined when it runs alone or on CPUs (MPI).
import { launchedAcceleratorPlace, type Accelerator } from "../distribute/devices.js";
import { StoreClient } from "../launch/store-client.js";

export async function launchedStore(o: { accelerator: Accelerator; pjrtPlugin?: string | undefined }): Promise<StoreClient | undefined> {
  const launched = launchedAcceleratorPlace({
    accelerator: o.accelerator,
    ...(o.pjrtPlugin !== undefined ? { pjrtPlugin: o.pjrtPlugin } : {}),
  });
  return launched ? StoreClient.connect(launched.place.coordinator) : undefined;
}
