// A classifier's evaluation metrics from its confusion matrix ([true class][predicted class] counts):
// accuracy, and macro F1 as scikit-learn's f1_score(average="macro") computes it (what transformers'
// examples report): the mean over the classes that occur in the labels or the predictions of each
// class's F1 = 2·TP / (2·TP + FP + FN); a class that occurs in neither is left out (sklearn's label set
// is the union of both), and a class with no support or no prediction scores 0 (zero_division=0, the
// value sklearn's default "warn" gives too).

/** A square matrix of counts, [true class][predicted class]. */
export type ConfusionMatrix = number[][];

/** The flat [n·n] counts as an n × n matrix. */
export function confusionMatrix(flat: ArrayLike<number>, classes: number): ConfusionMatrix {
  if (flat.length !== classes * classes)
    throw new Error(`a confusion matrix of ${classes} classes has ${classes * classes} counts, got ${flat.length}`);
  return Array.from({ length: classes }, (_, t) => Array.from({ length: classes }, (_, p) => Math.round(flat[t * classes + p]!)));
}

/** Examples counted in the matrix. */
export function examplesOf(m: ConfusionMatrix): number {
  return m.reduce((n, row) => n + row.reduce((a, b) => a + b, 0), 0);
}

/** Right predictions over all examples (0 when there are none). */
export function accuracyOf(m: ConfusionMatrix): number {
  const total = examplesOf(m);
  return total ? m.reduce((n, row, c) => n + row[c]!, 0) / total : 0;
}

/** Each class's F1, undefined for a class with neither support nor predictions. */
export function perClassF1(m: ConfusionMatrix): (number | undefined)[] {
  return m.map((row, c) => {
    const tp = row[c]!;
    const support = row.reduce((a, b) => a + b, 0);
    const predicted = m.reduce((n, r) => n + r[c]!, 0);
    if (support === 0 && predicted === 0) return undefined;
    return (2 * tp) / (support + predicted);
  });
}

/** sklearn's macro F1 (see the top of this file); 0 for an empty matrix. */
export function macroF1Of(m: ConfusionMatrix): number {
  const scores = perClassF1(m).filter((f): f is number => f !== undefined);
  return scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 0;
}

/** The matrix as aligned text lines: a header of predicted labels, then one row per true label. */
export function confusionLines(m: ConfusionMatrix, labels: readonly string[]): string[] {
  const names = m.map((_, c) => labels[c] ?? String(c));
  const first = Math.max("true \\ predicted".length, ...names.map((n) => n.length));
  const width = Math.max(...names.map((n) => n.length), ...m.flat().map((v) => String(v).length));
  const cell = (s: string) => s.padStart(width);
  return [
    `${"true \\ predicted".padEnd(first)}  ${names.map(cell).join("  ")}`,
    ...m.map((row, t) => `${names[t]!.padEnd(first)}  ${row.map((v) => cell(String(v))).join("  ")}`),
  ];
}
