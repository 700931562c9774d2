// The native stacks koffi runs foreign calls on, sized once per JS thread before any library loads.
// koffi's defaults (2 MiB for synchronous calls, 128 KiB for asynchronous ones) are too small for XLA,
// which compiles inside PJRT_Client_Compile and waits on events from koffi's worker threads; koffi
// accepts at most 16 MiB and refuses any change once a library has been loaded. Every module that
// loads a library through koffi imports this one first.
import koffi from "koffi";

/** The stack for synchronous calls (PJRT_Client_Compile runs XLA's whole compiler on it). */
export const SYNC_STACK_BYTES = 16 << 20;
/** The stack for each asynchronous call (PJRT_Event_Await, ONNX Runtime's Run on a worker). */
export const ASYNC_STACK_BYTES = 8 << 20;

const current = koffi.config();
if (current.sync_stack_size !== SYNC_STACK_BYTES || current.async_stack_size !== ASYNC_STACK_BYTES) {
  try {
    koffi.config({ sync_stack_size: SYNC_STACK_BYTES, async_stack_size: ASYNC_STACK_BYTES });
  } catch (e) {
    // Something in this process loaded a library through koffi before Kiln was imported.
    process.emitWarning(
      `kiln: koffi's native stacks stay at ${current.sync_stack_size} / ${current.async_stack_size} bytes (${(e as Error).message}); ` +
        "import kiln before loading other libraries through koffi, or XLA's compiler may overflow them",
    );
  }
}
