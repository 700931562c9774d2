// src/launch: running one training as many cooperating processes, on one host or many. The coordination
// store (a TCP key-value service the processes share), the environment a launcher sets, `kiln launch`'s
// supervisor, and `launch(fn)` for a TypeScript function.
export { StoreServer, type StoreServerOptions } from "./store-server.js";
export { StoreClient, StoreError, type StoreClientOptions } from "./store-client.js";
export type { StoreErrorCode, StoreClientErrorCode } from "../io/store-wire.js";
export { readProcessEnv, parseHostPort, ProcessEnvError, type ProcessEnv, type ProcessEnvSource } from "./process-env.js";
export { checkSameSettings, type SameSettingsOptions } from "./same-settings.js";
export { superviseProcesses, processEnvironment, signalExitCode, LaunchError, type SuperviseOptions } from "./supervisor.js";
export { relayLines } from "./line-relay.js";
export { launch, type LaunchContext, type LaunchOptions } from "./launch-function.js";
export { joinRun, JoinRunError, type RunContext } from "./join-run.js";
