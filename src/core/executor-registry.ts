// The executors of this process, in order of preference, each registered with a discovery hook that
// says whether what it needs is here: ONNX Runtime's executor needs ONNX Runtime's library (loaded
// by its hook), the reference interpreter nothing, and XLA's executors are registered once a PJRT plugin
// was found and its client made. Code that needs an ability asks for it (`findExecutor`) rather than
// naming an executor, and lists of what can run here leave out the executors whose discovery failed.
import type { Executor } from "./executor.js";

/** Looks for what an executor needs: undefined when it is here, else a sentence saying what is missing and how to get it. */
export type Discovery = () => string | undefined;

/** A registered executor and what its discovery found. */
export interface Discovered {
  readonly executor: Executor;
  /** Why the executor cannot run here (what it needs that is missing); absent when it can. */
  readonly missing?: string;
}

interface Registration {
  readonly executor: Executor;
  readonly discover: Discovery;
  found?: Discovered;
}

const registrations: Registration[] = [];

/**
 * Registers an executor (a second one of the same name is ignored); the first registered one's first
 * device is the default until changed. Neither its devices nor its discovery are asked for here
 * (registration happens at import; both may read the environment or load a library, whose errors
 * belong to the first use).
 */
export function registerExecutor(e: Executor, discover: Discovery = () => undefined): void {
  if (registrations.some((r) => r.executor.name === e.name)) return;
  registrations.push({ executor: e, discover });
}

/** Every registered executor, in order of preference, whether or not it can run here. */
export function registeredExecutors(): readonly Executor[] {
  return registrations.map((r) => r.executor);
}

/** Each registered executor with what its discovery found (run once per executor, when first asked). */
export function discoverExecutors(): readonly Discovered[] {
  return registrations.map((r) => {
    if (!r.found) {
      const missing = r.discover();
      r.found = missing === undefined ? { executor: r.executor } : { executor: r.executor, missing };
    }
    return r.found;
  });
}

/** The registered executors whose discovery succeeded, in order of preference. */
export function availableExecutors(): Executor[] {
  return discoverExecutors()
    .filter((d) => d.missing === undefined)
    .map((d) => d.executor);
}

/** The first executor that can run here and has what `wanted` asks of it (its abilities, platform, methods). */
export function findExecutor(wanted: (e: Executor) => boolean): Executor | undefined {
  return availableExecutors().find(wanted);
}
