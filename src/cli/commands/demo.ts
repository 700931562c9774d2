import type { Command } from "./types.js";

export const demoCommand: Command = {
  name: "demo",
  summary: "run a small engine demo (placeholder until the end-to-end job lands)",
  run() {
    console.log("kiln demo");
  },
};
