/**
 * The report's only script, inlined (its hash is in the Content-Security-Policy): sorts the
 * per-sample diff table when a header button is clicked (numbers numerically, empty cells last,
 * ties in the original order) and filters it by text, change category and run. It reads only the
 * DOM rendered from escaped text; it never parses data into HTML. No `//` comments: the report
 * carries no `//` at all, which makes "no resource reference" easy to check.
 */
export const REPORT_SCRIPT = `(function () {
  "use strict";
  var table = document.getElementById("diff-table");
  document.documentElement.setAttribute("data-ready", "1");
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = new Map();
  for (var i = 0; i < rows.length; i++) text.set(rows[i], rows[i].textContent.toLowerCase());
  var q = document.getElementById("diff-q");
  var kind = document.getElementById("diff-kind");
  var run = document.getElementById("diff-run");
  var count = document.getElementById("diff-count");
  function apply() {
    var needle = q ? q.value.trim().toLowerCase() : "";
    var k = kind ? kind.value : "";
    var r = run ? run.value : "";
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var ok = (!k || row.getAttribute("data-kind") === k) &&
        (!r || row.getAttribute("data-run") === r) &&
        (!needle || text.get(row).indexOf(needle) >= 0);
      row.hidden = !ok;
      if (ok) shown++;
    }
    if (count) count.textContent = shown === rows.length ? rows.length + " rows" : shown + " of " + rows.length + " rows";
  }
  if (q) q.addEventListener("input", apply);
  if (kind) kind.addEventListener("change", apply);
  if (run) run.addEventListener("change", apply);
  var heads = table.tHead.rows[0].cells;
  function sortBy(col) {
    var th = heads[col];
    var numeric = th.getAttribute("data-type") === "num";
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    for (var h = 0; h < heads.length; h++) if (heads[h].hasAttribute("aria-sort")) heads[h].setAttribute("aria-sort", "none");
    th.setAttribute("aria-sort", dir);
    var sign = dir === "ascending" ? 1 : -1;
    var keyed = rows.map(function (row, i) {
      var cell = row.cells[col];
      var raw = cell ? cell.getAttribute("data-v") : null;
      var v;
      if (numeric) v = raw === null || raw === "" ? null : Number(raw);
      else v = (raw !== null ? raw : cell ? cell.textContent : "").toLowerCase();
      return { row: row, i: i, v: v };
    });
    keyed.sort(function (a, b) {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      if (a.v < b.v) return -sign;
      if (a.v > b.v) return sign;
      return a.i - b.i;
    });
    var frag = document.createDocumentFragment();
    for (var j = 0; j < keyed.length; j++) frag.appendChild(keyed[j].row);
    body.appendChild(frag);
  }
  for (var c = 0; c < heads.length; c++) {
    (function (col) {
      var button = heads[col].querySelector("button");
      if (button) button.addEventListener("click", function () { sortBy(col); });
    })(c);
  }
  apply();
})();
`;
