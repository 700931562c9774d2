// Reading one component of a tokenizer.json: the error every builder throws names the file and the JSON
// path of the field at fault, and says what Kiln reads there.

export type JsonObject = Record<string, unknown>;

export class TokenizerFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TokenizerFileError";
  }
}

/** Where in which file a component sits: `at("decoder")`, then `.in("decoders[2]")`. */
export class JsonPlace {
  constructor(
    readonly source: string,
    readonly path: string,
  ) {}

  in(field: string | number): JsonPlace {
    return new JsonPlace(this.source, typeof field === "number" ? `${this.path}[${field}]` : `${this.path}.${field}`);
  }

  fail(what: string): never {
    throw new TokenizerFileError(`${this.source}: "${this.path}" ${what}`);
  }

  /** For a component type Kiln does not run. */
  unsupported(type: unknown, known: readonly string[]): never {
    return this.fail(`has type ${JSON.stringify(type)}, which Kiln does not run (it runs ${known.join(", ")})`);
  }
}

export function isRecord(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function objectAt(v: unknown, place: JsonPlace): JsonObject {
  if (!isRecord(v)) place.fail(`is ${JSON.stringify(v)?.slice(0, 80)}, expected an object`);
  return v as JsonObject;
}

export function stringField(o: JsonObject, key: string, place: JsonPlace, fallback?: string): string {
  const v = o[key] ?? fallback;
  if (typeof v !== "string") place.in(key).fail(`is ${JSON.stringify(v)}, expected a string`);
  return v as string;
}

export function boolField(o: JsonObject, key: string, place: JsonPlace, fallback: boolean): boolean {
  const v = o[key] ?? fallback;
  if (typeof v !== "boolean") place.in(key).fail(`is ${JSON.stringify(v)}, expected true or false`);
  return v as boolean;
}

export function intField(o: JsonObject, key: string, place: JsonPlace, fallback?: number): number {
  const v = o[key] ?? fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) place.in(key).fail(`is ${JSON.stringify(v)}, expected an integer ≥ 0`);
  return v as number;
}

export function arrayField(o: JsonObject, key: string, place: JsonPlace): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) place.in(key).fail(`is ${JSON.stringify(v)?.slice(0, 80)}, expected an array`);
  return v as unknown[];
}
