// Which of a host's GPUs each of its processes takes when several share it (kiln launch --nproc-per-node N
// on a multi-GPU host): torchrun's and JAX's convention, one process per GPU, local rank r taking GPU r, or
// with `devices: n` per process, GPUs r·n … r·n + n − 1. Without it every process's CUDA client would
// claim every GPU of the host. A user who chose with CUDA_VISIBLE_DEVICES keeps that choice: each process
// then sees what CUDA shows it. Two processes cannot share one GPU: NCCL refuses at the first collective
// ("Duplicate GPU detected"), and the error then says so (pjrt/errors.ts).
import type { DevicesSpec } from "./devices.js";
import { envInt } from "./env-int.js";

/**
 * The GPU ordinals (the CUDA plugin's `visible_devices`) this process takes, or undefined when it takes
 * what CUDA shows it: one process on the host, CUDA_VISIBLE_DEVICES set, or `devices` a list of indices.
 */
export function localGpuOrdinals(env: NodeJS.ProcessEnv, spec: DevicesSpec): number[] | undefined {
  const localSize = envInt(env, "KILN_LOCAL_WORLD_SIZE") ?? 1;
  if (localSize <= 1 || env.CUDA_VISIBLE_DEVICES !== undefined || Array.isArray(spec)) return undefined;
  const localRank = envInt(env, "KILN_LOCAL_RANK") ?? 0;
  if (localRank >= localSize) throw new Error(`KILN_LOCAL_RANK=${localRank} is not below KILN_LOCAL_WORLD_SIZE=${localSize}`);
  const perProcess = typeof spec === "number" ? spec : 1;
  if (!Number.isInteger(perProcess) || perProcess < 1) throw new Error(`devices must be a positive integer, got ${perProcess}`);
  return Array.from({ length: perProcess }, (_, i) => localRank * perProcess + i);
}
