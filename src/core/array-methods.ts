// Array's math methods, attached to the class once the ops they call are defined (as JAX's
// array_methods.py does): array.ts stays free of imports from ops/, which import Array. The package
// entries (core/index.ts) import this file before anything can call a method.
import { Array, type ArrayOrScalar } from "./array.js";
import type { DType } from "./dtype.js";
import type { Shape } from "./shape.js";
import * as ew from "./ops/elementwise.js";
import * as sh from "./ops/shape.js";
import * as rd from "./ops/reduce.js";
import * as la from "./ops/linalg.js";
import * as ix from "./ops/indexing.js";

// Methods whose result has the array's own dtype (shapes, indexing) or a fixed one (comparisons: bool)
// say so in their type; arithmetic promotes, so its result is any Array.
declare module "./array.js" {
  interface Array<D extends DType = DType> {
    // ---- arithmetic (broadcasting, dtype promotion) ----
    add(y: ArrayOrScalar): Array;
    sub(y: ArrayOrScalar): Array;
    mul(y: ArrayOrScalar): Array;
    div(y: ArrayOrScalar): Array;
    pow(y: ArrayOrScalar): Array;
    maximum(y: ArrayOrScalar): Array;
    minimum(y: ArrayOrScalar): Array;
    neg(): Array;
    exp(): Array;
    log(): Array;
    tanh(): Array;
    erf(): Array;
    sqrt(): Array;
    rsqrt(): Array;
    abs(): Array;
    sin(): Array;
    cos(): Array;
    square(): Array;
    isFinite(): Array<"bool">;
    // ---- comparisons and logic (results are bool) ----
    equal(y: ArrayOrScalar): Array<"bool">;
    notEqual(y: ArrayOrScalar): Array<"bool">;
    less(y: ArrayOrScalar): Array<"bool">;
    lessEqual(y: ArrayOrScalar): Array<"bool">;
    greater(y: ArrayOrScalar): Array<"bool">;
    greaterEqual(y: ArrayOrScalar): Array<"bool">;
    and(y: Array<D> | number | boolean): Array<D>;
    and(y: ArrayOrScalar): Array;
    or(y: Array<D> | number | boolean): Array<D>;
    or(y: ArrayOrScalar): Array;
    xor(y: Array<D> | number | boolean): Array<D>;
    xor(y: ArrayOrScalar): Array;
    not(): Array<D>;
    shiftLeft(y: ArrayOrScalar): Array;
    shiftRight(y: ArrayOrScalar): Array;
    astype<T extends DType>(dtype: T): Array<T>;
    // ---- reductions ----
    sum(axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array;
    mean(axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array;
    max(axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array;
    min(axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array;
    var(axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array;
    argmax(axis: number): Array;
    cumsum(axis: number, opts?: { reverse?: boolean }): Array;
    // ---- shapes ----
    reshape(shape: readonly number[]): Array<D>;
    transpose(perm?: readonly number[]): Array<D>;
    broadcastTo(shape: Shape): Array<D>;
    expandDims(axis: number): Array<D>;
    squeeze(axes?: number | readonly number[]): Array<D>;
    flatten(): Array<D>;
    slice(start: readonly number[], limit: readonly number[]): Array<D>;
    // ---- linear algebra and indexing ----
    matmul(y: Array): Array;
    take(indices: Array, axis?: number): Array<D>;
  }
}

const methods = {
  // ---- arithmetic (broadcasting, dtype promotion) ----
  add(this: Array, y: ArrayOrScalar): Array {
    return ew.add(this, y);
  },
  sub(this: Array, y: ArrayOrScalar): Array {
    return ew.sub(this, y);
  },
  mul(this: Array, y: ArrayOrScalar): Array {
    return ew.mul(this, y);
  },
  div(this: Array, y: ArrayOrScalar): Array {
    return ew.div(this, y);
  },
  pow(this: Array, y: ArrayOrScalar): Array {
    return ew.pow(this, y);
  },
  maximum(this: Array, y: ArrayOrScalar): Array {
    return ew.maximum(this, y);
  },
  minimum(this: Array, y: ArrayOrScalar): Array {
    return ew.minimum(this, y);
  },
  neg(this: Array): Array {
    return ew.neg(this);
  },
  exp(this: Array): Array {
    return ew.exp(this);
  },
  log(this: Array): Array {
    return ew.log(this);
  },
  tanh(this: Array): Array {
    return ew.tanh(this);
  },
  erf(this: Array): Array {
    return ew.erf(this);
  },
  sqrt(this: Array): Array {
    return ew.sqrt(this);
  },
  rsqrt(this: Array): Array {
    return ew.rsqrt(this);
  },
  abs(this: Array): Array {
    return ew.abs(this);
  },
  sin(this: Array): Array {
    return ew.sin(this);
  },
  cos(this: Array): Array {
    return ew.cos(this);
  },
  square(this: Array): Array {
    return ew.mul(this, this);
  },
  isFinite(this: Array): Array {
    return ew.isFinite(this);
  },
  // ---- comparisons and logic (results are bool) ----
  equal(this: Array, y: ArrayOrScalar): Array {
    return ew.compare(this, y, "eq");
  },
  notEqual(this: Array, y: ArrayOrScalar): Array {
    return ew.compare(this, y, "ne");
  },
  less(this: Array, y: ArrayOrScalar): Array {
    return ew.compare(this, y, "lt");
  },
  lessEqual(this: Array, y: ArrayOrScalar): Array {
    return ew.compare(this, y, "le");
  },
  greater(this: Array, y: ArrayOrScalar): Array {
    return ew.compare(this, y, "gt");
  },
  greaterEqual(this: Array, y: ArrayOrScalar): Array {
    return ew.compare(this, y, "ge");
  },
  and(this: Array, y: ArrayOrScalar): Array {
    return ew.bitAnd(this, y);
  },
  or(this: Array, y: ArrayOrScalar): Array {
    return ew.bitOr(this, y);
  },
  xor(this: Array, y: ArrayOrScalar): Array {
    return ew.bitXor(this, y);
  },
  not(this: Array): Array {
    return ew.bitNot(this);
  },
  shiftLeft(this: Array, y: ArrayOrScalar): Array {
    return ew.shiftLeft(this, y);
  },
  shiftRight(this: Array, y: ArrayOrScalar): Array {
    return ew.shiftRightLogical(this, y);
  },
  astype(this: Array, dtype: DType): Array {
    return ew.astype(this, dtype);
  },
  // ---- reductions ----
  sum(this: Array, axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array {
    return rd.sum(this, axes, opts);
  },
  mean(this: Array, axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array {
    return rd.mean(this, axes, opts);
  },
  max(this: Array, axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array {
    return rd.max(this, axes, opts);
  },
  min(this: Array, axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array {
    return rd.min(this, axes, opts);
  },
  var(this: Array, axes?: number | readonly number[], opts?: { keepDims?: boolean }): Array {
    return rd.variance(this, axes, opts);
  },
  argmax(this: Array, axis: number): Array {
    return rd.argmax(this, axis);
  },
  cumsum(this: Array, axis: number, opts?: { reverse?: boolean }): Array {
    return rd.cumsum(this, axis, opts);
  },
  // ---- shapes ----
  reshape(this: Array, shape: readonly number[]): Array {
    return sh.reshape(this, shape);
  },
  transpose(this: Array, perm?: readonly number[]): Array {
    return sh.transpose(this, perm);
  },
  broadcastTo(this: Array, shape: Shape): Array {
    return sh.broadcastTo(this, shape);
  },
  expandDims(this: Array, axis: number): Array {
    return sh.expandDims(this, axis);
  },
  squeeze(this: Array, axes?: number | readonly number[]): Array {
    return sh.squeeze(this, axes);
  },
  flatten(this: Array): Array {
    return sh.reshape(this, [this.size]);
  },
  slice(this: Array, start: readonly number[], limit: readonly number[]): Array {
    return sh.slice(this, start, limit);
  },
  // ---- linear algebra and indexing ----
  matmul(this: Array, y: Array): Array {
    return la.matmul(this, y);
  },
  take(this: Array, indices: Array, axis = 0): Array {
    return ix.take(this, indices, axis);
  },
};

for (const [name, method] of Object.entries(methods)) {
  Object.defineProperty(Array.prototype, name, { value: method, writable: true, configurable: true, enumerable: false });
}
