"use strict";
// Filters the hosts table (text over host, fleet and cluster; verdict) and the host sections
// with it, and sorts the table by a clicked column (its cells' data-key, else their text; a
// second click reverses).
(function () {
  var table = document.getElementById("hosts");
  var body = table.tBodies[0];
  var text = document.getElementById("filter-text");
  var verdict = document.getElementById("filter-verdict");
  var shown = document.getElementById("shown");
  var sections = {};
  document.querySelectorAll("section.host[data-host]").forEach(function (s) {
    sections[s.getAttribute("data-host")] = s;
  });
  var rows = Array.prototype.slice.call(body.rows);
  var searchText = rows.map(function (r) {
    return [0, 1, 2].map(function (i) { return r.cells[i].textContent; }).join(" ").toLowerCase();
  });

  function apply() {
    var query = text.value.trim().toLowerCase();
    var wanted = verdict.value;
    var visible = 0;
    rows.forEach(function (row, i) {
      var show = (!wanted || row.getAttribute("data-verdict") === wanted) &&
        (!query || searchText[i].indexOf(query) !== -1);
      row.hidden = !show;
      var section = sections[row.getAttribute("data-host")];
      if (section) { section.hidden = !show; }
      if (show) { visible += 1; }
    });
    shown.textContent = visible + " of " + rows.length + " hosts";
  }
  text.addEventListener("input", apply);
  verdict.addEventListener("change", apply);
  document.querySelectorAll("button[data-filter]").forEach(function (button) {
    button.addEventListener("click", function () {
      verdict.value = button.getAttribute("data-filter");
      apply();
    });
  });

  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  headers.forEach(function (th) {
    var button = th.querySelector("button");
    button.addEventListener("click", function () {
      var column = Number(button.getAttribute("data-column"));
      var numeric = button.getAttribute("data-kind") === "number";
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      headers.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var order = rows.map(function (row, i) {
        var cell = row.cells[column];
        var key = cell.hasAttribute("data-key") ? cell.getAttribute("data-key") : cell.textContent;
        return { row: row, key: numeric ? Number(key) : key, host: row.getAttribute("data-host"), i: i };
      });
      order.sort(function (a, b) {
        var c = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
        if (!ascending) { c = -c; }
        if (c === 0) { c = a.host < b.host ? -1 : a.host > b.host ? 1 : 0; }
        return c;
      });
      var fragment = document.createDocumentFragment();
      order.forEach(function (o) { fragment.appendChild(o.row); });
      body.appendChild(fragment);
      // The search text follows its row.
      var texts = order.map(function (o) { return searchText[o.i]; });
      rows = order.map(function (o) { return o.row; });
      searchText = texts;
    });
  });
  apply();
})();
