/**
 * The report's stylesheet, inlined into a `<style>` element. Colours are CSS variables so one set
 * of rules serves light mode, dark mode (`prefers-color-scheme`) and print. Runs take the
 * Okabe–Ito palette, which stays distinguishable under the common colour-vision deficiencies;
 * improved / regressed use its blue / vermillion pair and always carry a symbol as well.
 */
export const REPORT_CSS: string = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1d2129; --muted: #5c6370; --faint: #8a919c;
  --card: #f6f7f9; --line: #dfe2e7; --grid: #e9ecf0; --head: #eef0f4;
  --best: #fff1c9; --best-fg: #5a4300; --accent: #0072b2; --ref: #7a818c;
  --c0: #0072b2; --c1: #e69f00; --c2: #009e73; --c3: #d55e00;
  --c4: #cc79a7; --c5: #56b4e9; --c6: #f0e442; --c7: #5f6368;
  --improved: #0072b2; --regressed: #d55e00; --errored: #b4448f; --recovered: #00856a;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14161b; --fg: #e4e7ec; --muted: #a3aab5; --faint: #7c8491;
    --card: #1c1f26; --line: #333844; --grid: #2a2e37; --head: #232731;
    --best: #3d3416; --best-fg: #ffe29a; --accent: #56b4e9; --ref: #9aa1ab;
    --c0: #3e9be0; --c7: #c4c9d1;
    --improved: #56b4e9; --regressed: #f0883e; --errored: #e79ccb; --recovered: #2fc39a;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body {
  margin: 0 auto; max-width: 1180px; padding: 28px 24px 48px;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
h1 { font-size: 22px; line-height: 1.25; margin: 0 0 6px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 36px 0 10px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 0 0 6px; display: flex; gap: 8px; align-items: baseline; overflow-wrap: anywhere; }
p { margin: 6px 0; }
figure { margin: 0; }
.sub, .note { color: var(--muted); }
.note { font-size: 12.5px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; text-align: left; }
th { background: var(--head); font-weight: 600; font-size: 12.5px; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
.table-wrap table th:first-child, .table-wrap table td:first-child { padding-left: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; vertical-align: 0; }
.letter { font-weight: 700; color: var(--muted); }
.run-name { overflow-wrap: anywhere; }
.tag { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 6px; border-radius: 9px; border: 1px solid currentColor; color: var(--accent); margin-left: 6px; vertical-align: 1px; }
.pill { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px; font-variant-numeric: tabular-nums; background: var(--card); border: 1px solid var(--line); margin: 0 4px 2px 0; }
.pill.bad { color: var(--regressed); border-color: var(--regressed); }
.pill.warn { color: var(--errored); border-color: var(--errored); }
td.best { background: var(--best); color: var(--best-fg); font-weight: 700; }
td .ci { display: block; font-size: 11.5px; font-weight: 400; color: var(--muted); }
td.best .ci { color: inherit; opacity: .8; }
.best-mark { font-size: 11px; margin-right: 3px; }
td.warn { color: var(--errored); font-weight: 600; }
sup.sig { font-size: 10.5px; font-weight: 700; color: var(--accent); margin-left: 1px; }
.legend { font-size: 12.5px; color: var(--muted); margin-top: 8px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(500px, 1fr)); gap: 14px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px 6px; break-inside: avoid; }
.dir { font-size: 11.5px; font-weight: 500; color: var(--muted); }
svg.chart { display: block; width: 100%; height: auto; font-size: 12px; overflow: visible; }
svg .grid { stroke: var(--grid); stroke-width: 1; }
svg .baseline-axis { stroke: var(--line); }
svg .tick { fill: var(--faint); text-anchor: middle; font-size: 11px; }
svg .run-label { fill: var(--fg); text-anchor: end; }
svg .run-label .letter { fill: var(--muted); }
svg .value { fill: var(--fg); font-variant-numeric: tabular-nums; }
svg .value .ci { fill: var(--muted); font-size: 11px; }
svg .ref { stroke: var(--ref); stroke-dasharray: 4 3; stroke-width: 1; }
svg .mark .whisker { stroke: currentColor; stroke-width: 2; stroke-linecap: round; }
svg .mark .dot { fill: currentColor; stroke: var(--card); stroke-width: 1.5; }
svg .mark .box { fill: currentColor; fill-opacity: .28; stroke: currentColor; stroke-width: 1.5; }
svg .mark .median { stroke: currentColor; stroke-width: 3; }
svg .mark .p95 { fill: var(--card); stroke: currentColor; stroke-width: 2; }
svg .mark .p99 { fill: currentColor; }
svg .mark .pmax { stroke: currentColor; stroke-width: 2.2; fill: none; }
svg .mark.missing text { fill: var(--faint); font-style: italic; }
.c0 { color: var(--c0); } .c1 { color: var(--c1); } .c2 { color: var(--c2); } .c3 { color: var(--c3); }
.c4 { color: var(--c4); } .c5 { color: var(--c5); } .c6 { color: var(--c6); } .c7 { color: var(--c7); }
.swatch.c0, .swatch.c1, .swatch.c2, .swatch.c3, .swatch.c4, .swatch.c5, .swatch.c6, .swatch.c7 { background: currentColor; }
.dist-key { display: flex; flex-wrap: wrap; gap: 14px; font-size: 12px; color: var(--muted); margin: 2px 0 6px; }
.dist-key svg { width: 22px; height: 12px; vertical-align: -1px; color: var(--muted); }
.dist-key .box { fill: currentColor; fill-opacity: .28; stroke: currentColor; }
.dist-key .p95 { fill: none; stroke: currentColor; stroke-width: 2; }
.dist-key .p99 { fill: currentColor; }
.dist-key .pmax { stroke: currentColor; stroke-width: 2; }
table.pct { margin: 8px 0 6px; font-size: 12.5px; }
table.pct th, table.pct td { padding: 3px 8px; }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 10px 0; }
.controls input, .controls select {
  font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; padding: 5px 9px;
}
.controls input { min-width: 260px; flex: 1 1 260px; }
.controls .count { color: var(--muted); font-size: 12.5px; margin-left: auto; }
.diff-wrap { max-height: 78vh; overflow: auto; }
#diff-table { font-size: 12.5px; }
#diff-table th, #diff-table td { padding: 6px 8px; }
#diff-table thead th { position: sticky; top: 0; z-index: 1; }
#diff-table th button {
  font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0;
  cursor: pointer; white-space: nowrap;
}
#diff-table th button::after { content: " ↕"; color: var(--faint); font-weight: 400; }
#diff-table th[aria-sort="ascending"] button::after { content: " ↑"; color: var(--accent); }
#diff-table th[aria-sort="descending"] button::after { content: " ↓"; color: var(--accent); }
#diff-table td.q { min-width: 180px; max-width: 320px; overflow-wrap: anywhere; }
#diff-table td.run { min-width: 100px; max-width: 150px; overflow-wrap: break-word; font-size: 12px; }
#diff-table .sid, #trials-table .sid { display: block; color: var(--muted); font-size: 11.5px; }
.spread { display: block; color: var(--muted); font-size: 11.5px; }
td.spread { display: table-cell; }
.spread.flips { color: var(--warn, #b45309); font-weight: 600; }
.trials-each { color: var(--muted); font-size: 12px; white-space: nowrap; }
#diff-table ol.ids { margin: 0; padding: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 11.5px; }
#diff-table ol.ids li { max-width: 220px; list-style-position: inside; overflow-wrap: anywhere; }
#slices .slice { margin: 16px 0 0; }
#slices .slice h3 .note { font-weight: 400; }
#diff-table dl.gold { margin: 4px 0 0; font-size: 11.5px; display: grid; grid-template-columns: auto 1fr; gap: 1px 6px; }
#diff-table dl.gold dt { color: var(--muted); }
#diff-table dl.gold dd { margin: 0; }
#diff-table dl.gold ul { margin: 0; padding: 0; list-style: none; overflow-wrap: anywhere; }
#diff-table dl.gold ul.ids-whole { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
#diff-table dl.gold .mk { color: var(--muted); }
#diff-table ol.ids li::marker { color: var(--faint); }
#diff-table .ans { display: block; margin-top: 2px; font-style: italic; overflow-wrap: anywhere; max-width: 260px; }
#diff-table .err { color: var(--errored); overflow-wrap: break-word; min-width: 150px; max-width: 260px; white-space: pre-wrap; }
#diff-table .more { color: var(--faint); }
.kind { display: inline-block; white-space: nowrap; font-weight: 600; font-size: 11.5px; padding: 1px 7px; border-radius: 9px; border: 1px solid currentColor; }
.kind.improved { color: var(--improved); }
.kind.regressed { color: var(--regressed); }
.kind.newly-errored { color: var(--errored); }
.kind.recovered { color: var(--recovered); }
.delta.up { color: var(--improved); } .delta.down { color: var(--regressed); }
.more-row { text-align: center; margin: 10px 0 0; }
.more-row button {
  font: inherit; color: var(--accent); background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: 5px 14px; cursor: pointer;
}
.empty { color: var(--muted); font-style: italic; padding: 14px; }
footer { margin-top: 40px; color: var(--faint); font-size: 12px; border-top: 1px solid var(--line); padding-top: 10px; }
@media print {
  :root {
    --bg: #fff; --fg: #000; --muted: #444; --faint: #666; --card: #fff; --line: #bbb;
    --grid: #ddd; --head: #eee; --best: #fff1c9; --best-fg: #000;
  }
  body { max-width: none; padding: 0; font-size: 11px; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .controls, .more-row { display: none; }
  .diff-wrap { max-height: none; overflow: visible; }
  .table-wrap { overflow: visible; }
  #diff-table thead th { position: static; }
  .charts { grid-template-columns: 1fr 1fr; }
  h2 { break-after: avoid; }
  tr, .card { break-inside: avoid; }
}
`;
