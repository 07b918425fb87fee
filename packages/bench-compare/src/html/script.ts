/** Diff rows laid out at a time; "show more" adds as many. Layout, not parsing, is what costs. */
export const DIFF_PAGE: number = 200;

/**
 * The report's only script, inlined (its hash is in the Content-Security-Policy): sorts the
 * per-sample diff table when a header button is clicked (numbers numerically, empty cells last,
 * ties in the original order), filters it by text, change category, run and (runs with trials)
 * samples whose trials disagree, filters the trials table likewise, and shows the
 * matching rows {@link DIFF_PAGE} at a time (a browser lays out thousands of table rows slowly;
 * hidden rows cost nothing). It reads only the DOM rendered from escaped text; it never parses
 * data into HTML. No `//` comments: the report carries no `//` at all, which makes "no resource
 * reference" easy to check.
 */
export const REPORT_SCRIPT: string = `(function () {
  "use strict";
  var PAGE = ${DIFF_PAGE};
  var trialsTable = document.getElementById("trials-table");
  if (trialsTable) {
    var trialRows = Array.prototype.slice.call(trialsTable.tBodies[0].rows);
    var onlyFlips = document.getElementById("trials-disagree");
    var trialsRun = document.getElementById("trials-run");
    var trialsCount = document.getElementById("trials-count");
    var applyTrials = function () {
      var only = onlyFlips ? onlyFlips.checked : false;
      var r = trialsRun ? trialsRun.value : "";
      var matched = 0;
      for (var i = 0; i < trialRows.length; i++) {
        var row = trialRows[i];
        var ok = (!only || row.getAttribute("data-disagree") === "1") &&
          (!r || row.getAttribute("data-run") === r);
        if (ok) matched++;
        if (row.hidden === ok) row.hidden = !ok;
      }
      trialsTable.setAttribute("data-matched", String(matched));
      if (trialsCount) {
        trialsCount.textContent = matched === trialRows.length ? trialRows.length + " samples" : matched + " of " + trialRows.length + " samples";
      }
    };
    if (onlyFlips) onlyFlips.addEventListener("change", applyTrials);
    if (trialsRun) trialsRun.addEventListener("change", applyTrials);
    applyTrials();
  }
  var table = document.getElementById("diff-table");
  document.documentElement.setAttribute("data-ready", "1");
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var order = rows.slice();
  var text = new Map();
  for (var i = 0; i < rows.length; i++) text.set(rows[i], rows[i].textContent.toLowerCase());
  var q = document.getElementById("diff-q");
  var kind = document.getElementById("diff-kind");
  var run = document.getElementById("diff-run");
  var count = document.getElementById("diff-count");
  var more = document.getElementById("diff-more");
  var flips = document.getElementById("diff-disagree");
  var limit = PAGE;
  function apply() {
    var needle = q ? q.value.trim().toLowerCase() : "";
    var k = kind ? kind.value : "";
    var r = run ? run.value : "";
    var matched = 0;
    for (var i = 0; i < order.length; i++) {
      var row = order[i];
      var ok = (!k || row.getAttribute("data-kind") === k) &&
        (!flips || !flips.checked || row.getAttribute("data-disagree") === "1") &&
        (!r || row.getAttribute("data-run") === r) &&
        (!needle || text.get(row).indexOf(needle) >= 0);
      if (ok) matched++;
      var show = ok && matched <= limit;
      if (row.hidden === show) row.hidden = !show;
    }
    var shown = Math.min(matched, limit);
    table.setAttribute("data-matched", String(matched));
    if (count) {
      count.textContent = (matched === rows.length ? rows.length + " rows" : matched + " of " + rows.length + " rows") +
        (shown < matched ? ", first " + shown + " shown" : "");
    }
    if (more) {
      more.hidden = shown >= matched;
      more.textContent = "Show " + Math.min(PAGE, matched - shown) + " more";
    }
  }
  function refilter() { limit = PAGE; apply(); }
  if (q) q.addEventListener("input", refilter);
  if (kind) kind.addEventListener("change", refilter);
  if (run) run.addEventListener("change", refilter);
  if (flips) flips.addEventListener("change", refilter);
  if (more) more.addEventListener("click", function () { limit += PAGE; apply(); });
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
    order = keyed.map(function (k) { return k.row; });
    apply();
    var frag = document.createDocumentFragment();
    for (var j = 0; j < order.length; j++) frag.appendChild(order[j]);
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
