// Which process this is among several, from the launcher's environment, and which MPI library goes with
// it; and the error when none is installed.
import test from "node:test";
import assert from "node:assert/strict";
import { joinProcessGroup, processPlace } from "../../src/distribute/multi-process.js";
import { launcherFlavor, loadMpi } from "../../src/distribute/mpi/library.js";

test("processPlace reads Open MPI's, MPICH's and kiln launch's variables; a process started alone has none", () => {
  assert.deepEqual(processPlace({ OMPI_COMM_WORLD_RANK: "1", OMPI_COMM_WORLD_SIZE: "4" }), { rank: 1, size: 4, source: "openmpi" });
  assert.deepEqual(processPlace({ PMI_RANK: "0", PMI_SIZE: "2" }), { rank: 0, size: 2, source: "mpich" });
  assert.deepEqual(processPlace({ KILN_RANK: "3", KILN_WORLD_SIZE: "4", PMI_RANK: "0", PMI_SIZE: "4" }), {
    rank: 3,
    size: 4,
    source: "kiln",
  });
  assert.equal(processPlace({}), undefined);
  assert.equal(processPlace({ OMPI_COMM_WORLD_RANK: "0", OMPI_COMM_WORLD_SIZE: "1" }), undefined, "one process is not a group");
  assert.throws(() => processPlace({ PMI_RANK: "2", PMI_SIZE: "2" }), /PMI_RANK=2 is not below PMI_SIZE=2/);
  assert.throws(() => processPlace({ KILN_RANK: "one", KILN_WORLD_SIZE: "2" }), /KILN_RANK must be a whole number ≥ 0, got "one"/);
});

test("KILN_RANK without kiln launch's process-management interface is refused naming the ways to start", () => {
  assert.throws(
    () => joinProcessGroup({ env: { KILN_RANK: "1", KILN_WORLD_SIZE: "2" } }),
    (e: Error) =>
      /rank 1 of 2 \(KILN_RANK, KILN_WORLD_SIZE\), but no MPI launcher started it \(no PMI_PORT or KILN_MPI\)/.test(e.message) &&
      e.message.endsWith("start the processes with kiln launch --nproc-per-node 2 or mpiexec -n 2"),
  );
});

test("the MPI library follows the launcher (KILN_MPI overrides it)", () => {
  assert.equal(launcherFlavor({ OMPI_COMM_WORLD_SIZE: "2" }), "openmpi");
  assert.equal(launcherFlavor({ PMI_SIZE: "2" }), "mpich");
  assert.equal(launcherFlavor({ KILN_MPI: "mpich", OMPI_COMM_WORLD_SIZE: "2" }), "mpich");
  assert.equal(launcherFlavor({}), undefined);
  assert.throws(() => launcherFlavor({ KILN_MPI: "lam" }), /KILN_MPI must be "openmpi" or "mpich", got "lam"/);
});

test("no MPI library: the error names the libraries looked for and the apt-get command", () => {
  const none = { openmpi: ["libmpi-absent.so.40"], mpich: ["libmpich-absent.so.12"] };
  assert.throws(
    () => loadMpi(undefined, none),
    /no MPI library found \(looked for libmpi-absent\.so\.40, libmpich-absent\.so\.12\).*apt-get install -y openmpi-bin libopenmpi-dev/,
  );
  assert.throws(
    () => loadMpi("mpich", none),
    (e: Error) =>
      e.message.startsWith("no MPICH library found (looked for libmpich-absent.so.12): this process was started for MPICH") &&
      e.message.endsWith("KILN_MPI=mpich); install it with `apt-get install -y mpich libmpich-dev`"),
  );
});
