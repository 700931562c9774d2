// Glob patterns shared by the storage back ends: `*` and `?` match within one path segment, `**`
// matches across segments. Matching is on the full path string as written in the pattern.

const WILDCARD = /[*?]/;

export function hasWildcard(pattern: string): boolean {
  return WILDCARD.test(pattern);
}

/** The regular expression a glob pattern denotes (anchored at both ends). */
export function globToRegExp(pattern: string): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        // `**/` may match zero segments, so `a/**/b` also matches `a/b`.
        if (pattern[i + 2] === "/") {
          re += "(?:.*/)?";
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** The part of the pattern before its first wildcard: every match starts with it. */
export function literalPrefix(pattern: string): string {
  const m = WILDCARD.exec(pattern);
  return m ? pattern.slice(0, m.index) : pattern;
}
