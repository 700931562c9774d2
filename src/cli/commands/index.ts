// The table of `kiln` subcommands; `kiln --help` lists them in this order.
import type { Command } from "./types.js";
import { demoCommand } from "./demo.js";
import { devicesCommand } from "./devices.js";

export const COMMANDS: Command[] = [demoCommand, devicesCommand];
