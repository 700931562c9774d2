// Suffix array by induced sorting (SA-IS: Nong, Zhang & Chan, "Two Efficient Algorithms for Linear Time
// Suffix Array Construction", 2011) and the LCP array by Kasai's algorithm. Linear time, typed arrays.
// The text must end with a unique smallest symbol (0); symbols lie in [0, alphabetSize).

const L_TYPE = 0;
const S_TYPE = 1;

export function suffixArray(text: Int32Array, alphabetSize: number): Int32Array {
  const n = text.length;
  if (n === 0 || text[n - 1] !== 0) throw new Error("suffixArray: the text must end with the symbol 0");
  const sa = new Int32Array(n);
  // The end symbol alone has no LMS position to start the induction from.
  if (n > 1) sais(text, sa, n, alphabetSize);
  return sa;
}

function bucketBounds(text: Int32Array, n: number, k: number, ends: boolean, bucket: Int32Array): void {
  bucket.fill(0);
  for (let i = 0; i < n; i++) bucket[text[i]]++;
  let sum = 0;
  for (let c = 0; c < k; c++) {
    sum += bucket[c];
    bucket[c] = ends ? sum : sum - bucket[c];
  }
}

function induceL(text: Int32Array, sa: Int32Array, type: Uint8Array, n: number, k: number, bucket: Int32Array): void {
  bucketBounds(text, n, k, false, bucket);
  for (let i = 0; i < n; i++) {
    const j = sa[i] - 1;
    if (j >= 0 && type[j] === L_TYPE) sa[bucket[text[j]]++] = j;
  }
}

function induceS(text: Int32Array, sa: Int32Array, type: Uint8Array, n: number, k: number, bucket: Int32Array): void {
  bucketBounds(text, n, k, true, bucket);
  for (let i = n - 1; i >= 0; i--) {
    const j = sa[i] - 1;
    if (j >= 0 && type[j] === S_TYPE) sa[--bucket[text[j]]] = j;
  }
}

function sais(text: Int32Array, sa: Int32Array, n: number, k: number): void {
  const type = new Uint8Array(n);
  type[n - 1] = S_TYPE;
  for (let i = n - 2; i >= 0; i--) {
    type[i] = text[i] < text[i + 1] || (text[i] === text[i + 1] && type[i + 1] === S_TYPE) ? S_TYPE : L_TYPE;
  }
  const isLms = (i: number): boolean => i > 0 && type[i] === S_TYPE && type[i - 1] === L_TYPE;
  const bucket = new Int32Array(k);

  // Stage 1: sort the LMS substrings by induction from their bucket ends.
  bucketBounds(text, n, k, true, bucket);
  sa.fill(-1);
  for (let i = 1; i < n; i++) if (isLms(i)) sa[--bucket[text[i]]] = i;
  induceL(text, sa, type, n, k, bucket);
  induceS(text, sa, type, n, k, bucket);

  // Gather the sorted LMS positions at the front and name equal LMS substrings alike.
  let lmsCount = 0;
  for (let i = 0; i < n; i++) if (isLms(sa[i])) sa[lmsCount++] = sa[i];
  sa.fill(-1, lmsCount);
  let names = 0;
  let previous = -1;
  for (let i = 0; i < lmsCount; i++) {
    const pos = sa[i];
    let differs = false;
    for (let d = 0; d < n; d++) {
      if (previous === -1 || text[pos + d] !== text[previous + d] || type[pos + d] !== type[previous + d]) {
        differs = true;
        break;
      }
      if (d > 0 && (isLms(pos + d) || isLms(previous + d))) break;
    }
    if (differs) {
      names++;
      previous = pos;
    }
    // LMS positions are at least two apart, so pos/2 gives each its own slot.
    sa[lmsCount + (pos >> 1)] = names - 1;
  }
  for (let i = n - 1, j = n - 1; i >= lmsCount; i--) if (sa[i] >= 0) sa[j--] = sa[i];

  // Stage 2: sort the reduced string (recursively while names repeat).
  const reduced = sa.subarray(n - lmsCount);
  if (names < lmsCount) {
    sais(reduced.slice(), sa.subarray(0, lmsCount), lmsCount, names);
  } else {
    for (let i = 0; i < lmsCount; i++) sa[reduced[i]] = i;
  }

  // Stage 3: place the LMS suffixes in their final order, then induce everything else.
  for (let i = 1, j = 0; i < n; i++) if (isLms(i)) reduced[j++] = i;
  for (let i = 0; i < lmsCount; i++) sa[i] = reduced[sa[i]];
  sa.fill(-1, lmsCount);
  bucketBounds(text, n, k, true, bucket);
  for (let i = lmsCount - 1; i >= 0; i--) {
    const j = sa[i];
    sa[i] = -1;
    sa[--bucket[text[j]]] = j;
  }
  induceL(text, sa, type, n, k, bucket);
  induceS(text, sa, type, n, k, bucket);
}

/** lcp[i] = length of the longest common prefix of suffixes sa[i-1] and sa[i]; lcp[0] = 0. */
export function lcpArray(text: Int32Array, sa: Int32Array): Int32Array {
  const n = text.length;
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) rank[sa[i]] = i;
  const lcp = new Int32Array(n);
  let h = 0;
  for (let i = 0; i < n; i++) {
    const r = rank[i];
    if (r === 0) {
      h = 0;
      continue;
    }
    const j = sa[r - 1];
    while (i + h < n && j + h < n && text[i + h] === text[j + h]) h++;
    lcp[r] = h;
    if (h > 0) h--;
  }
  return lcp;
}
