// report.html's only script, allowed by its sha256 in the page's CSP (templating.py). It reads
// the leaderboard already in the page and changes nothing but which rows show and their order;
// without it the page shows every row, in rank order. It fetches nothing.
(function () {
  "use strict";
  var board = document.getElementById("board");
  var form = document.getElementById("board-tools");
  if (board && form) {
    var body = board.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var search = form.querySelector("[name=q]");
    var tier = form.querySelector("[name=tier]");
    var state = form.querySelector("[name=state]");
    var shown = document.getElementById("board-count");
    var more = document.getElementById("board-more");
    var limit = Number(board.getAttribute("data-page")) || rows.length;
    var all = false;
    // Shows the rows that match, in the table's current order, the first `limit` of them
    // until "show all" is pressed (a long table costs the browser its layout, not its DOM).
    var filter = function () {
      var q = search.value.trim().toLowerCase();
      var count = 0;
      Array.prototype.forEach.call(body.rows, function (row) {
        var keep = (!q || row.getAttribute("data-name").indexOf(q) !== -1) &&
          (!tier.value || row.getAttribute("data-tier") === tier.value) &&
          (!state.value || (" " + row.getAttribute("data-states") + " ").indexOf(" " + state.value + " ") !== -1);
        row.hidden = !keep || (!all && count >= limit);
        count += keep ? 1 : 0;
      });
      var listed = all ? count : Math.min(count, limit);
      shown.textContent = count + " of " + rows.length + " models match" +
        (listed < count ? " (the first " + listed + " listed)" : "");
      more.hidden = listed >= count;
      more.textContent = "Show all " + count;
    };
    more.addEventListener("click", function () { all = true; filter(); });
    var sortBy = function (column, button, first) {
      var now = button.getAttribute("aria-sort");
      var down = now ? now === "ascending" : first === "desc";
      var value = function (row) {
        var v = row.cells[column].getAttribute("data-v");
        var n = Number(v);
        return v !== null && v !== "" && !isNaN(n) ? n : (v || row.cells[column].textContent).toLowerCase();
      };
      var keyed = rows.map(function (row, i) { return [value(row), i, row]; });
      keyed.sort(function (a, b) {
        var order = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1];
        return down && a[0] !== b[0] ? -order : order;
      });
      Array.prototype.forEach.call(board.querySelectorAll("th button"), function (b) { b.removeAttribute("aria-sort"); });
      button.setAttribute("aria-sort", down ? "descending" : "ascending");
      var fragment = document.createDocumentFragment();
      keyed.forEach(function (k) { fragment.appendChild(k[2]); });
      body.appendChild(fragment);
      filter();
    };
    Array.prototype.forEach.call(board.tHead.rows[0].cells, function (th, column) {
      if (!th.hasAttribute("data-sort")) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      var first = th.getAttribute("data-sort");
      button.addEventListener("click", function () { sortBy(column, button, first); });
    });
    form.addEventListener("input", filter);
    form.hidden = false;
    filter();
  }
  // Past the inline limit a model's drill-down is its own page: an old deep link into this page
  // (report.html#m12-prompt_3) goes on to models/m12.html#m12-prompt_3.
  var follow = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var model = /^(m[0-9]+)(-|$)/.exec(id);
    if (model && !document.getElementById(id) && document.body.hasAttribute("data-model-pages")) {
      location.replace("models/" + model[1] + ".html#" + encodeURIComponent(id));
    }
  };
  follow();
  window.addEventListener("hashchange", follow);
})();
