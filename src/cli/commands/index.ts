// The table of `kiln` subcommands; `kiln --help` lists them in this order.
import type { Command } from "./types.js";
import { demoCommand } from "./demo.js";
import { devicesCommand } from "./devices.js";
import { tokenizerCommand } from "./tokenizer.js";
import { dataCommand } from "./data.js";
import { trainCommand } from "./train.js";
import { fillMaskCommand } from "./fill-mask.js";

export const COMMANDS: Command[] = [demoCommand, devicesCommand, tokenizerCommand, dataCommand, trainCommand, fillMaskCommand];
