// Client creation for one of many processes: the options a plugin gets, and the key prefix of its
// store traffic. As jaxlib does it (jax/_src/xla_bridge.py make_pjrt_c_api_client): CUDA plugins get
// node_id and num_nodes as create options and the store as PJRT_Client_Create's callbacks, keys
// prefixed "cuda:"; libtpu gets the callbacks (keys "tpu:") and reads its topology from the environment
// (TPU_WORKER_ID, TPU_WORKER_HOSTNAMES, TPU_PROCESS_ADDRESSES, …) itself.
import type { PjrtPluginKind } from "../discovery.js";
import type { ClientOptionValue } from "../pjrt/named-values.js";

/** How an XLA client joins a computation over several processes: this process's index, their number, the store. */
export interface DistributedOptions {
  /** This process's index among the processes of the computation, from 0 (PJRT's node_id; KILN_NODE_RANK…). */
  readonly nodeId: number;
  /** How many processes share the computation (PJRT's num_nodes). */
  readonly numNodes: number;
  /** The coordination store every process reaches (what `kiln launch` serves; KILN_COORDINATOR). */
  readonly coordinator: { readonly host: string; readonly port: number };
  /** Prefix of the plugin's store keys (default: "cuda:", "tpu:", or "pjrt:" for an explicit plugin). */
  readonly keyPrefix?: string;
  /** How long to wait for the store to accept the connection, in ms (default 30 000). */
  readonly connectTimeoutMs?: number;
}

/** Checks the options, with errors that name them. */
export function checkDistributedOptions(d: DistributedOptions): void {
  const { nodeId, numNodes, coordinator } = d;
  if (!Number.isInteger(numNodes) || numNodes < 1) throw new Error(`distributed.numNodes must be a positive integer, got ${numNodes}`);
  if (!Number.isInteger(nodeId) || nodeId < 0 || nodeId >= numNodes)
    throw new Error(`distributed.nodeId must be an integer from 0 to numNodes - 1 = ${numNodes - 1}, got ${nodeId}`);
  if (!coordinator || typeof coordinator.host !== "string" || coordinator.host === "")
    throw new Error("distributed.coordinator.host must name the coordination store's host (e.g. the launcher's 127.0.0.1)");
  if (!Number.isInteger(coordinator.port) || coordinator.port < 1 || coordinator.port > 65535)
    throw new Error(`distributed.coordinator.port must be a TCP port (1–65535), got ${coordinator.port}`);
}

/** The store key prefix for a plugin: jaxlib's `platform_name + ":"`. */
export function storeKeyPrefix(kind: PjrtPluginKind, d: DistributedOptions): string {
  if (d.keyPrefix !== undefined) return d.keyPrefix;
  return kind === "cuda" ? "cuda:" : kind === "tpu" ? "tpu:" : "pjrt:";
}

/**
 * The PJRT_Client_Create options of one process, in the order Kiln writes them: the platform's
 * defaults, the caller's options, then node_id and num_nodes (Int64) for every plugin but libtpu,
 * which takes its topology from the environment. XLA's CPU plugins are refused: they have no
 * cross-process collectives (the 0.115 build rejects node_id and num_nodes; see the README).
 */
export function distributedCreateOptions(
  kind: PjrtPluginKind,
  base: Readonly<Record<string, ClientOptionValue>>,
  d: DistributedOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, ClientOptionValue> {
  checkDistributedOptions(d);
  if (kind === "cpu")
    throw new Error(
      "distributed: XLA's CPU PJRT plugins have no cross-process collectives (they refuse node_id and num_nodes); " +
        "run many processes on CPUs with MPI instead, or the XLA executor on GPU/TPU plugins",
    );
  for (const name of ["node_id", "num_nodes"])
    if (name in base) throw new Error(`clientOptions.${name} and distributed both set ${name}: give only distributed`);
  if (kind === "tpu") {
    checkTpuEnvironment(d, env);
    return { ...base };
  }
  return { ...base, node_id: d.nodeId, num_nodes: d.numNodes };
}

/**
 * libtpu takes its worker id and the workers' hosts from the environment, not from these options: a
 * process whose variables say otherwise would join another topology than the one asked for.
 */
function checkTpuEnvironment(d: DistributedOptions, env: Readonly<Record<string, string | undefined>>): void {
  const id = env.TPU_WORKER_ID ?? env.CLOUD_TPU_TASK_ID;
  if (id !== undefined && id !== "" && Number(id) !== d.nodeId)
    throw new Error(
      `distributed.nodeId is ${d.nodeId} but the environment says worker ${id} (TPU_WORKER_ID/CLOUD_TPU_TASK_ID); ` +
        "libtpu takes its worker id from the environment: give the same number to both",
    );
  const hosts = env.TPU_WORKER_HOSTNAMES?.split(",").filter((h) => h !== "");
  if (hosts?.length && hosts.length !== d.numNodes)
    throw new Error(
      `distributed.numNodes is ${d.numNodes} but TPU_WORKER_HOSTNAMES names ${hosts.length} workers; ` +
        "libtpu takes the workers from the environment: give one process per worker",
    );
}
