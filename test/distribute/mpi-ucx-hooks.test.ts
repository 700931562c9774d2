// UCX (under Debian's MPICH, and Open MPI's pml ucx) patches mmap/munmap/brk/sbrk in place and swaps malloc
// when it starts, unless told not to; in a Node process, whose threads are running meanwhile, a rank once died
// of SIGSEGV there. Kiln's MPI binding turns the hooks off unless the user chose (distribute/mpi/library.ts).
// UCX's own debug log says whether it installed them.
import test from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { findLauncher, mpiRun, mpiSkip } from "../helpers/mpi-launcher.js";

const script = fileURLToPath(new URL("../helpers/mpi-init.js", import.meta.url));
const HOOKS_INSTALLED = /mmap installed events/;

test(
  "MPI through UCX starts without UCX's memory hooks, unless UCX_MEM_EVENTS says otherwise",
  { skip: mpiSkip, timeout: 60_000 },
  async (t) => {
    if (!findLauncher("mpich")) return t.skip("MPICH is not installed (apt-get install -y mpich libmpich-dev)");
    const env = { UCX_MEM_LOG_LEVEL: "debug" };
    const quiet = await mpiRun(2, [script], { flavor: "mpich", env, timeoutMs: 50_000 });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.match(quiet.stdout, /UCX_MEM_EVENTS=no/);
    assert.doesNotMatch(quiet.stdout + quiet.stderr, HOOKS_INSTALLED, "UCX installed its memory hooks");
    // The user's own setting stands, and UCX then installs them (which is what the log line above detects).
    const chosen = await mpiRun(1, [script], { flavor: "mpich", env: { ...env, UCX_MEM_EVENTS: "yes" }, timeoutMs: 50_000 });
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.match(chosen.stdout, /UCX_MEM_EVENTS=yes/);
    assert.match(chosen.stdout + chosen.stderr, HOOKS_INSTALLED);
  },
);
