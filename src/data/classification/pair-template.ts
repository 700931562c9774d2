// How a tokenizer lays out a text pair, read from its tokenizer.json's post-processor (the Tokenizer
// interface encodes single texts only): TemplateProcessing's `pair` template, or the fixed layouts of
// BertProcessing ([CLS] A [SEP] B [SEP], token types 0 then 1) and RobertaProcessing (<s> A </s></s> B </s>,
// token type 0 throughout). Undefined for any other post-processor, or none.

export type PairPiece = { special: number[]; typeId: number } | { sequence: "A" | "B"; typeId: number };

interface TemplateItem {
  SpecialToken?: { id: string; type_id: number };
  Sequence?: { id: "A" | "B"; type_id: number };
}

interface PostProcessor {
  type?: string;
  pair?: TemplateItem[];
  special_tokens?: Record<string, { ids: number[] }>;
  sep?: [string, number];
  cls?: [string, number];
  processors?: PostProcessor[];
}

export function pairTemplate(tokenizerJson: { post_processor?: PostProcessor | null }): PairPiece[] | undefined {
  let p = tokenizerJson.post_processor ?? undefined;
  // A Sequence post-processor (e.g. ByteLevel then TemplateProcessing): the one that adds the specials.
  if (p?.type === "Sequence")
    p = p.processors?.find((q) => ["TemplateProcessing", "BertProcessing", "RobertaProcessing"].includes(q.type!));
  if (!p) return undefined;
  if (p.type === "TemplateProcessing" && Array.isArray(p.pair)) {
    const pieces: PairPiece[] = [];
    for (const item of p.pair) {
      if (item.Sequence) pieces.push({ sequence: item.Sequence.id, typeId: item.Sequence.type_id });
      else if (item.SpecialToken) {
        const ids = p.special_tokens?.[item.SpecialToken.id]?.ids;
        if (!ids) return undefined;
        pieces.push({ special: ids, typeId: item.SpecialToken.type_id });
      } else return undefined;
    }
    return pieces;
  }
  if ((p.type === "BertProcessing" || p.type === "RobertaProcessing") && p.cls && p.sep) {
    const [cls, sep] = [[p.cls[1]], [p.sep[1]]];
    if (p.type === "BertProcessing")
      return [
        { special: cls, typeId: 0 },
        { sequence: "A", typeId: 0 },
        { special: sep, typeId: 0 },
        { sequence: "B", typeId: 1 },
        { special: sep, typeId: 1 },
      ];
    return [
      { special: cls, typeId: 0 },
      { sequence: "A", typeId: 0 },
      { special: sep, typeId: 0 },
      { special: sep, typeId: 0 },
      { sequence: "B", typeId: 0 },
      { special: sep, typeId: 0 },
    ];
  }
  return undefined;
}
