// C struct layouts computed from field lists, as a C compiler lays them out on LP64 platforms
// (Linux x86-64 and aarch64): each field at the next multiple of its alignment. PJRT's size rule
// for argument structs is offsetof(last field) + sizeof(last field), without tail padding.

export type FieldType = "size_t" | "pointer" | "int" | "int64" | "bool" | "float" | "union8";

/** Size and alignment of each field type (union8: the 8-byte value union of PJRT_NamedValue). */
const SIZE: Record<FieldType, number> = { size_t: 8, pointer: 8, int: 4, int64: 8, bool: 1, float: 4, union8: 8 };

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  readonly offset: number;
}

export interface StructLayout {
  readonly name: string;
  readonly fields: ReadonlyMap<string, Field>;
  /** offsetof(last) + sizeof(last): the value PJRT's struct_size fields carry. */
  readonly structSize: number;
  /** sizeof(struct): structSize rounded up to the struct's alignment (what to allocate). */
  readonly byteLength: number;
}

export function defineStruct(name: string, decl: readonly (readonly [string, FieldType])[]): StructLayout {
  const fields = new Map<string, Field>();
  let offset = 0,
    align = 1;
  for (const [field, type] of decl) {
    if (fields.has(field)) throw new Error(`${name}: field ${field} declared twice`);
    const size = SIZE[type];
    offset = Math.ceil(offset / size) * size;
    fields.set(field, { name: field, type, offset });
    offset += size;
    align = Math.max(align, size);
  }
  return { name, fields, structSize: offset, byteLength: Math.ceil(offset / align) * align };
}

export function fieldOf(layout: StructLayout, field: string): Field {
  const f = layout.fields.get(field);
  if (!f) throw new Error(`${layout.name} has no field ${field}`);
  return f;
}
