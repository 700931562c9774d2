// The loss curve as a self-contained HTML page (inline SVG, no scripts or network), written at the end
// of training next to the metrics.

export interface Series {
  name: string;
  points: [number, number][];
  color: string;
}

function escape(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

export function lossCurveHtml(title: string, series: Series[]): string {
  const W = 720,
    H = 360,
    L = 60,
    R = 20,
    T = 30,
    B = 40;
  const all = series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y));
  const xs = all.map((p) => p[0]),
    ys = all.map((p) => p[1]);
  const x0 = Math.min(...xs, 0),
    x1 = Math.max(...xs, 1);
  const y0 = Math.min(...ys, Infinity),
    y1 = Math.max(...ys, -Infinity);
  const yLo = Number.isFinite(y0) ? y0 : 0,
    yHi = Number.isFinite(y1) && y1 > yLo ? y1 : yLo + 1;
  const sx = (x: number) => L + ((x - x0) / (x1 - x0 || 1)) * (W - L - R);
  const sy = (y: number) => T + (1 - (y - yLo) / (yHi - yLo)) * (H - T - B);
  const ticks = Array.from({ length: 5 }, (_, i) => yLo + ((yHi - yLo) * i) / 4);
  const paths = series.map((s) => {
    const d = s.points
      .filter(([, y]) => Number.isFinite(y))
      .map(([x, y], i) => `${i ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`)
      .join("");
    return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.5"/>`;
  });
  const legend = series.map(
    (s, i) => `<text x="${W - R - 140}" y="${T + 16 * i}" fill="${s.color}" font-size="12">— ${escape(s.name)}</text>`,
  );
  const grid = ticks.map(
    (t) =>
      `<line x1="${L}" x2="${W - R}" y1="${sy(t)}" y2="${sy(t)}" stroke="#eee"/>` +
      `<text x="${L - 6}" y="${sy(t) + 4}" font-size="11" text-anchor="end">${t.toPrecision(3)}</text>`,
  );
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head><body style="font-family:sans-serif">
<h3>${escape(title)}</h3>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
${grid.join("\n")}
<line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#888"/><line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#888"/>
<text x="${(L + W - R) / 2}" y="${H - 8}" font-size="12" text-anchor="middle">step</text>
<text x="${L}" y="${H - B + 16}" font-size="11">${x0}</text>` +
    `<text x="${W - R}" y="${H - B + 16}" font-size="11" text-anchor="end">${x1}</text>
${paths.join("\n")}
${legend.join("\n")}
</svg></body></html>
`
  );
}
