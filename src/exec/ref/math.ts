// Scalar math the JS runtime lacks, accurate to near double precision (the reference interpreter's
// answers are what every executor is held to, and gradient checks difference them in f64).

const TWO_OVER_SQRT_PI = 1.1283791670955126;

/** erf(x): Taylor series near zero, continued fraction for erfc in the tails (|err| < 1e-14). */
export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 2.5) {
    // erf(x) = 2/√π · Σ (-1)^n x^(2n+1) / (n! (2n+1))
    const x2 = x * x;
    let term = x,
      sum = x;
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return TWO_OVER_SQRT_PI * sum;
  }
  if (ax > 6) return Math.sign(x);
  return Math.sign(x) * (1 - erfcTail(ax));
}

/** erfc(x) for x ≥ 2.5, by the modified Lentz method on Laplace's continued fraction. */
function erfcTail(x: number): number {
  // erfc(x) = e^{-x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
  const tiny = 1e-300;
  let f = x,
    c = x,
    d = 0;
  for (let n = 1; n < 300; n++) {
    const an = n / 2;
    d = x + an * d;
    d = d === 0 ? tiny : d;
    c = x + an / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}
