// The package's "@kiln-ml/kiln/launch" entry: src/launch's public API, named one by one (the
// coordination store, the process environment, the supervisor and launch(fn)). It computes nothing, so
// it registers no executor.

export {
  launch,
  joinRun,
  superviseProcesses,
  StoreServer,
  StoreClient,
  StoreError,
  readProcessEnv,
  checkSameSettings,
  LaunchError,
  ProcessEnvError,
  JoinRunError,
  type LaunchContext,
  type LaunchOptions,
  type RunContext,
  type SuperviseOptions,
  type StoreServerOptions,
  type StoreClientOptions,
  type StoreErrorCode,
  type ProcessEnv,
  type ProcessEnvSource,
  type SameSettingsOptions,
} from "../launch/index.js";
