// A TCP port on 127.0.0.1 for a server that a child process is about to start. A port the kernel hands
// out for listen(0) comes from its ephemeral range, the same range that every outgoing connection of
// the tests running beside this one takes its local port from: in the moment between closing it here
// and the child binding it, one of them can take it (the child then fails with "address in use"). So
// the port is drawn below that range, where only servers that name their port ever bind.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The lowest ephemeral port (Linux's ip_local_port_range; 32768 where the file is not there). */
function ephemeralFloor(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

function listenable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

/** A port that is free now, below the ephemeral range where that range leaves room (else any free port). */
export async function freePort(): Promise<number> {
  const LOW = 10_000;
  const high = ephemeralFloor();
  if (high - LOW >= 1_000) {
    for (let i = 0; i < 50; i++) {
      const port = await listenable(LOW + Math.floor(Math.random() * (high - LOW)));
      if (port !== undefined) return port;
    }
  }
  const port = await listenable(0);
  if (port === undefined) throw new Error("no TCP port on 127.0.0.1 could be bound");
  return port;
}
