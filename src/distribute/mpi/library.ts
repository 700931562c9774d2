// The MPI C library, bound with koffi: Open MPI (libmpi.so.40) or MPICH (libmpich.so.12 / libmpi.so.12),
// whichever launched this process. The two differ in how they name MPI's handles: Open MPI's MPI_Comm,
// MPI_Datatype and MPI_Op are pointers to exported globals (ompi_mpi_comm_world, ompi_mpi_float, …),
// MPICH's are int constants from its mpi.h; MPI_IN_PLACE is (void *)1 in Open MPI and (void *)-1 in
// MPICH. Both sit behind `MpiLibrary`, whose handles are opaque values passed back as they came.
import "../../exec/native-stacks.js"; // before koffi loads any library
import koffi from "koffi";

export type MpiFlavor = "openmpi" | "mpich";

type KoffiLib = ReturnType<typeof koffi.load>;

/** The handles a communicator uses, in the library's own representation (BigInt addresses or ints). */
export interface MpiHandles {
  commWorld: bigint | number;
  float: bigint | number;
  double: bigint | number;
  byte: bigint | number;
  sum: bigint | number;
  max: bigint | number;
  inPlace: bigint;
}

type Fn = ((...args: any[]) => any) & { async: (...args: any[]) => void };

export interface MpiLibrary {
  flavor: MpiFlavor;
  path: string;
  handles: MpiHandles;
  fn: {
    MPI_Init_thread: Fn;
    MPI_Initialized: Fn;
    MPI_Finalized: Fn;
    MPI_Finalize: Fn;
    MPI_Comm_rank: Fn;
    MPI_Comm_size: Fn;
    MPI_Allreduce: Fn;
    MPI_Bcast: Fn;
    MPI_Barrier: Fn;
    MPI_Abort: Fn;
    MPI_Error_string: Fn;
  };
}

/**
 * The install command named in errors (Debian's packages). Open MPI is the default: when a rank dies its
 * mpirun names the rank ("process rank 1 … exited on signal 9"), where MPICH's Hydra names only a pid;
 * as root it needs --allow-run-as-root, and --oversubscribe for more processes than cores.
 */
export const MPI_INSTALL_HINT = "apt-get install -y openmpi-bin libopenmpi-dev (or mpich libmpich-dev)";

/** Each flavor's install command (Debian's packages). */
export const FLAVOR_INSTALL_HINT: Record<MpiFlavor, string> = {
  openmpi: "apt-get install -y openmpi-bin libopenmpi-dev",
  mpich: "apt-get install -y mpich libmpich-dev",
};

/** Where each flavor's library is looked for (names for the loader's search path, then Debian's paths). */
export const CANDIDATES: Record<MpiFlavor, readonly string[]> = {
  openmpi: ["libmpi.so.40", "/usr/lib/x86_64-linux-gnu/libmpi.so.40", "/usr/lib/aarch64-linux-gnu/libmpi.so.40"],
  mpich: ["libmpich.so.12", "libmpi.so.12", "/usr/lib/x86_64-linux-gnu/libmpich.so.12", "/usr/lib/aarch64-linux-gnu/libmpich.so.12"],
};

/**
 * Which MPI started this process, from its launcher's environment: Open MPI's mpirun sets
 * OMPI_COMM_WORLD_*, MPICH's Hydra sets PMI_* (and no OMPI_ variable). KILN_MPI names it outright.
 */
export function launcherFlavor(env: NodeJS.ProcessEnv = process.env): MpiFlavor | undefined {
  const named = env.KILN_MPI;
  if (named !== undefined && named !== "") {
    if (named !== "openmpi" && named !== "mpich") throw new Error(`KILN_MPI must be "openmpi" or "mpich", got "${named}"`);
    return named;
  }
  if (env.OMPI_COMM_WORLD_SIZE !== undefined) return "openmpi";
  if (env.PMI_SIZE !== undefined || env.PMI_RANK !== undefined || env.HYDRA_CONTROL_FD !== undefined) return "mpich";
  return undefined;
}

/**
 * UCX, the transport under Debian's MPICH (ch4:ucx) and Open MPI's pml ucx, by default installs memory hooks
 * when it loads: it patches the code of mmap, munmap, brk and sbrk in place ("bistro") and swaps malloc for
 * its own. A Node process has threads running (V8's compiler and GC, libuv's pool) while the patching
 * happens, and a rank once died of SIGSEGV inside V8 at an address in the brk heap just as MPI started.
 * The hooks serve only UCX's registration cache for RDMA, which Kiln's host-memory collectives do not need,
 * so they are off unless the user set UCX_MEM_EVENTS. Set before the library loads: UCX reads its
 * configuration then.
 */
function quietUcxMemoryHooks(): void {
  process.env.UCX_MEM_EVENTS ??= "no";
}

function open(paths: readonly string[]): { lib: KoffiLib; path: string } | undefined {
  for (const path of paths) {
    try {
      // RTLD_GLOBAL: Open MPI loads its components (mca_*.so) with dlopen and they resolve libmpi's symbols.
      return { lib: koffi.load(path, { global: true } as any), path };
    } catch {
      // not this name; try the next
    }
  }
  return undefined;
}

/**
 * Loads the MPI library of `flavor` (default: the launcher's, else Open MPI, else MPICH). Throws, naming
 * the install command, when none is installed.
 */
export function loadMpi(flavor: MpiFlavor | undefined = launcherFlavor(), candidates = CANDIDATES): MpiLibrary {
  quietUcxMemoryHooks();
  const order: MpiFlavor[] = flavor ? [flavor] : ["openmpi", "mpich"];
  for (const f of order) {
    const found = open(candidates[f]);
    if (found) return bind(f, found.lib, found.path);
  }
  const names = order.flatMap((f) => candidates[f].filter((c) => !c.startsWith("/")));
  // The launcher chose the flavor (mpiexec's PMI, kiln launch's KILN_MPI=mpich): only that one's library will join.
  if (flavor)
    throw new Error(
      `no ${flavor === "mpich" ? "MPICH" : "Open MPI"} library found (looked for ${names.join(", ")}): this process was started ` +
        `for ${flavor === "mpich" ? "MPICH" : "Open MPI"} (its launcher's variables, or KILN_MPI=${flavor}); install it with ` +
        `\`${FLAVOR_INSTALL_HINT[flavor]}\``,
    );
  throw new Error(
    `no MPI library found (looked for ${names.join(", ")}): multi-process training on CPUs needs MPI; ` +
      `install it with \`${MPI_INSTALL_HINT}\` and start the processes with mpiexec -n N (or mpirun -n N)`,
  );
}

function bind(flavor: MpiFlavor, lib: KoffiLib, path: string): MpiLibrary {
  // MPI_Comm, MPI_Datatype and MPI_Op: pointers in Open MPI, ints in MPICH.
  const H = flavor === "openmpi" ? "void *" : "int";
  const f = (proto: string) => lib.func(proto) as Fn;
  const fn = {
    MPI_Init_thread: f("int MPI_Init_thread(int *argc, void *argv, int required, _Out_ int *provided)"),
    MPI_Initialized: f("int MPI_Initialized(_Out_ int *flag)"),
    MPI_Finalized: f("int MPI_Finalized(_Out_ int *flag)"),
    MPI_Finalize: f("int MPI_Finalize()"),
    MPI_Comm_rank: f(`int MPI_Comm_rank(${H} comm, _Out_ int *rank)`),
    MPI_Comm_size: f(`int MPI_Comm_size(${H} comm, _Out_ int *size)`),
    MPI_Allreduce: f(`int MPI_Allreduce(void *sendbuf, void *recvbuf, int count, ${H} datatype, ${H} op, ${H} comm)`),
    MPI_Bcast: f(`int MPI_Bcast(void *buffer, int count, ${H} datatype, int root, ${H} comm)`),
    MPI_Barrier: f(`int MPI_Barrier(${H} comm)`),
    MPI_Abort: f(`int MPI_Abort(${H} comm, int errorcode)`),
    MPI_Error_string: f("int MPI_Error_string(int errorcode, _Out_ uint8_t *string, _Out_ int *resultlen)"),
  };
  const handles: MpiHandles =
    flavor === "openmpi"
      ? {
          commWorld: lib.symbol("ompi_mpi_comm_world") as bigint,
          float: lib.symbol("ompi_mpi_float") as bigint,
          double: lib.symbol("ompi_mpi_double") as bigint,
          byte: lib.symbol("ompi_mpi_byte") as bigint,
          sum: lib.symbol("ompi_mpi_op_sum") as bigint,
          max: lib.symbol("ompi_mpi_op_max") as bigint,
          inPlace: 1n,
        }
      : {
          // MPICH's mpi.h: MPI_COMM_WORLD, MPI_FLOAT, MPI_DOUBLE, MPI_BYTE, MPI_SUM, MPI_MAX (stable ABI since 3.x).
          commWorld: 0x44000000,
          float: 0x4c00040a,
          double: 0x4c00080b,
          byte: 0x4c00010d,
          sum: 0x58000003,
          max: 0x58000001,
          inPlace: 0xffffffffffffffffn,
        };
  return { flavor, path, handles, fn };
}
