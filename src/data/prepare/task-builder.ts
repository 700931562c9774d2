// Collects the UTF-8 lines of one encoder task: their bytes, each followed by "\n", and their line
// numbers (for error messages).

export interface LineBatch {
  file: string;
  /** The lines, each terminated by "\n". */
  bytes: Uint8Array;
  /** 1-based line number of each line in `file`. */
  lines: Int32Array;
}

export class TaskBuilder {
  private buf = new Uint8Array(1 << 16);
  private used = 0;
  private lineNumbers: number[] = [];

  get bytes(): number {
    return this.used;
  }

  get lines(): number {
    return this.lineNumbers.length;
  }

  append(src: Uint8Array, start: number, end: number, line: number): void {
    const n = end - start + 1;
    if (this.used + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.used + n));
      next.set(this.buf.subarray(0, this.used));
      this.buf = next;
    }
    this.buf.set(src.subarray(start, end), this.used);
    this.buf[this.used + n - 1] = 0x0a;
    this.used += n;
    this.lineNumbers.push(line);
  }

  /** The collected lines (an exact-size copy that can be transferred) and a reset builder. */
  take(file: string): LineBatch {
    const batch = { file, bytes: this.buf.slice(0, this.used), lines: Int32Array.from(this.lineNumbers) };
    this.used = 0;
    this.lineNumbers = [];
    return batch;
  }
}
