// Pytrees: nested plain objects and arrays whose leaves are Kiln Arrays (or other values). Flattening
// visits object keys in sorted order, so two trees with the same keys always flatten the same way.
import { Array } from "./array.js";

/** A nested structure of arrays (or other leaves `L`): arrays, lists and objects of them. */
export type PyTree<L = Array> = L | readonly PyTree<L>[] | { readonly [k: string]: PyTree<L> };

/** The structure of a tree without its leaves; `key` identifies it for caching. */
export interface TreeDef {
  readonly key: string;
  unflatten<L>(leaves: readonly L[]): any;
  readonly numLeaves: number;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== "object") return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/** Leaves are Arrays by default; `isLeaf` can widen that. Non-container values are leaves too. */
export function flatten(
  tree: unknown,
  isLeaf: (x: unknown) => boolean = (x) => x instanceof Array,
): { leaves: unknown[]; treedef: TreeDef } {
  const leaves: unknown[] = [];
  const build = (x: unknown): { key: string; make: (next: () => unknown) => unknown } => {
    if (isLeaf(x) || (!globalThis.Array.isArray(x) && !isPlainObject(x))) {
      leaves.push(x);
      return { key: "*", make: (next) => next() };
    }
    if (globalThis.Array.isArray(x)) {
      const kids = x.map(build);
      return { key: `[${kids.map((k) => k.key).join(",")}]`, make: (next) => kids.map((k) => k.make(next)) };
    }
    const keys = Object.keys(x).sort();
    const kids = keys.map((k) => build(x[k]));
    return {
      key: `{${keys.map((k, i) => `${JSON.stringify(k)}:${kids[i]!.key}`).join(",")}}`,
      make: (next) => Object.fromEntries(keys.map((k, i) => [k, kids[i]!.make(next)])),
    };
  };
  const root = build(tree);
  const numLeaves = leaves.length;
  return {
    leaves,
    treedef: {
      key: root.key,
      numLeaves,
      unflatten<L>(ls: readonly L[]) {
        if (ls.length !== numLeaves) throw new Error(`unflatten: expected ${numLeaves} leaves, got ${ls.length}`);
        let i = 0;
        return root.make(() => ls[i++]);
      },
    },
  };
}

/** Leaves of a tree of Arrays, in flatten order (a model's parameter interface, e.g. RobertaParams, is such a tree). */
export function leaves<T>(tree: PyTree<T> | object): T[] {
  return flatten(tree, (x) => x instanceof Array || !(globalThis.Array.isArray(x) || isPlainObject(x))).leaves as T[];
}

/** Applies f to every leaf of the first tree (and the matching leaves of the others). */
export function treeMap<T = any>(f: (...xs: any[]) => unknown, tree: T, ...rest: unknown[]): T {
  const { leaves: ls, treedef } = flatten(tree);
  const others = rest.map((r) => {
    const o = flatten(r);
    if (o.treedef.key !== treedef.key) throw new Error("treeMap: trees have different structures");
    return o.leaves;
  });
  return treedef.unflatten(ls.map((l, i) => f(l, ...others.map((o) => o[i])))) as T;
}

/** Key paths ("encoder.layer.0.weight") of every leaf, in flatten order. */
export function leafPaths(tree: unknown, sep = "."): string[] {
  const out: string[] = [];
  const walk = (x: unknown, path: string[]) => {
    if (x instanceof Array || (!globalThis.Array.isArray(x) && !isPlainObject(x))) out.push(path.join(sep));
    else if (globalThis.Array.isArray(x)) x.forEach((v, i) => walk(v, [...path, String(i)]));
    else for (const k of Object.keys(x).sort()) walk((x as Record<string, unknown>)[k], [...path, k]);
  };
  walk(tree, []);
  return out;
}
