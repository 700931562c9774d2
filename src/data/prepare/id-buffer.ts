// Collecting token ids of many texts into one flat Int32Array.

/** Token ids of several texts back to back, with the number of ids of each text. */
export interface EncodedTexts {
  ids: Int32Array;
  lengths: Int32Array;
}

/** A growable Int32Array. */
export class IdBuffer {
  private buf = new Int32Array(1 << 16);
  length = 0;

  pushOne(id: number): void {
    if (this.length === this.buf.length) this.reserve(1);
    this.buf[this.length++] = id;
  }

  push(ids: readonly number[]): void {
    if (this.length + ids.length > this.buf.length) this.reserve(ids.length);
    const buf = this.buf;
    let at = this.length;
    for (let k = 0; k < ids.length; k++) buf[at++] = ids[k]!;
    this.length = at;
  }

  finish(): Int32Array {
    return this.buf.subarray(0, this.length);
  }

  private reserve(n: number): void {
    const next = new Int32Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}
