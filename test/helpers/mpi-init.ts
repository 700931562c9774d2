// A process that only joins MPI through Kiln's binding and leaves: what UCX does while MPI starts in a Node
// process (test/distribute/mpi-ucx-hooks.test.ts) without the rest of a training run around it.
import { loadMpi } from "../../src/distribute/mpi/library.js";

const mpi = loadMpi();
const provided = [0];
const code = mpi.fn.MPI_Init_thread(null, null, 0, provided) as number;
if (code !== 0) throw new Error(`MPI_Init_thread returned ${code}`);
console.log(`UCX_MEM_EVENTS=${process.env.UCX_MEM_EVENTS}`);
mpi.fn.MPI_Finalize();
