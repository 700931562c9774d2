// `npm run bench -- train [flags of kiln bench train]`: the same measurement as `kiln bench train --json`.
import "../src/index.js";
import { benchCommand } from "../src/cli/commands/bench.js";

export async function run(args: string[]): Promise<void> {
  await benchCommand.run(["train", "--json", ...args]);
}
