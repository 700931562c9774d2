// The table of `kiln` subcommands; `kiln --help` lists them in this order.
import type { Command } from "./types.js";
import { devicesCommand } from "./devices.js";
import { tokenizerCommand } from "./tokenizer.js";
import { dataCommand } from "./data.js";
import { trainCommand } from "./train.js";
import { fillMaskCommand } from "./fill-mask.js";
import { classifyCommand } from "./classify.js";
import { generateCommand } from "./generate.js";
import { quickstartCommand } from "./quickstart.js";
import { benchCommand } from "./bench.js";
import { exportCommand } from "./export.js";
import { launchCommand } from "./launch.js";
import { verifyCommand } from "./verify.js";

export const COMMANDS: Command[] = [
  quickstartCommand,
  devicesCommand,
  tokenizerCommand,
  dataCommand,
  trainCommand,
  fillMaskCommand,
  classifyCommand,
  generateCommand,
  exportCommand,
  launchCommand,
  verifyCommand,
  benchCommand,
];
