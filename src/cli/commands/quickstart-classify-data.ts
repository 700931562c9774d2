// The data stages of `kiln quickstart --task classify`: the SpamAssassin emails as labelled JSON Lines
// (training and held-out, split by checksum), a plain-text copy of the training emails for the tokenizer
// and the masked-LM pretraining, and Kiln's classification records of both splits.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../io/atomic-file.js";
import { spamAssassinSplits, type LabelledEmail } from "../../data/spam-assassin.js";
import { prepareClassificationDataset } from "../../data/classification/prepare.js";

/** The classes, in id order: the label map every split is prepared with. */
export const EMAIL_LABELS = ["ham", "spam"] as const;

/** Where the email files go under the quickstart's directory. */
export function emailFiles(dir: string): { train: string; heldOut: string; text: string } {
  const d = join(dir, "emails");
  return { train: join(d, "train.jsonl"), heldOut: join(d, "held-out.jsonl"), text: join(d, "train.txt") };
}

/** Writes the corpus' splits (once; a later run reuses them) and returns how many emails of each label each holds. */
export async function writeEmailSplits(dir: string, heldOutEvery: number): Promise<string> {
  const files = emailFiles(dir);
  if (existsSync(files.train) && existsSync(files.heldOut) && existsSync(files.text)) return "reused";
  const { train, heldOut } = spamAssassinSplits(heldOutEvery);
  await mkdir(join(dir, "emails"), { recursive: true });
  const jsonl = (emails: LabelledEmail[]) =>
    emails.map((e) => JSON.stringify({ id: e.id, text: e.text, label: e.label })).join("\n") + "\n";
  await writeFileAtomic(files.train, jsonl(train));
  await writeFileAtomic(files.heldOut, jsonl(heldOut));
  // Texts hold no line breaks (whitespace is folded), so each is one document of the text file.
  await writeFileAtomic(files.text, train.map((e) => e.text).join("\n") + "\n");
  const count = (emails: LabelledEmail[]) => EMAIL_LABELS.map((l) => `${emails.filter((e) => e.label === l).length} ${l}`).join(", ");
  return `training ${train.length} (${count(train)}), held out ${heldOut.length} (${count(heldOut)})`;
}

/** Prepares both splits as classification records under `out` (train/ and held-out/), once. */
export async function prepareEmailRecords(dir: string, tokenizerDir: string, out: string, maxLength: number): Promise<void> {
  const files = emailFiles(dir);
  for (const [split, input] of [
    ["train", files.train],
    ["held-out", files.heldOut],
  ] as const) {
    if (existsSync(join(out, split, "prepare.json"))) continue;
    const r = await prepareClassificationDataset({
      input,
      textColumn: "text",
      labelColumn: "label",
      labels: [...EMAIL_LABELS],
      tokenizer: tokenizerDir,
      out,
      split,
      maxLength,
      padToMultipleOf: 32,
    });
    const shapes = Object.entries(r.paddedLengths)
      .map(([L, n]) => `${L}: ${n}`)
      .join(", ");
    console.error(
      `${split}: ${r.records} records, ${r.lengths.mean.toFixed(0)} tokens on average, ${r.truncated} cut; padded lengths ${shapes}`,
    );
  }
}
