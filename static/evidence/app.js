// Evidence desk: the little the server cannot drive. Keyboard moves between citations in the audit view,
// the highlighted span scrolls into view after a swap, and the live timeline never shows a step twice.
(function () {
  "use strict";

  function citationLinks() {
    // One stop per span, in the order of the citation list (the answer's markers repeat them).
    var seen = {}, links = [];
    document.querySelectorAll(".audit-answer ol.citations a.cite").forEach(function (a) {
      if (!seen[a.dataset.span]) { seen[a.dataset.span] = true; links.push(a); }
    });
    return links;
  }

  function currentIndex(links) {
    var source = document.getElementById("source");
    var span = source ? source.dataset.span : null;
    for (var i = 0; i < links.length; i++) { if (links[i].dataset.span === span) return i; }
    return -1;
  }

  function markCurrent() {
    var source = document.getElementById("source");
    if (!source) return;
    document.querySelectorAll("a.cite").forEach(function (a) {
      if (a.dataset.span === source.dataset.span) a.setAttribute("aria-current", "true");
      else a.removeAttribute("aria-current");
    });
  }

  function showSpan() {
    var mark = document.getElementById("span");
    if (mark) mark.scrollIntoView({ block: "center", behavior: "instant" });
  }

  document.addEventListener("keydown", function (event) {
    if (!document.querySelector(".audit")) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.metaKey || event.ctrlKey || event.altKey) return;
    var step = { j: 1, ArrowDown: 1, ArrowRight: 1, k: -1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    var links = citationLinks();
    if (!links.length) return;
    event.preventDefault();
    var next = Math.max(0, Math.min(links.length - 1, currentIndex(links) + step));
    links[next].focus();
    links[next].click();
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "source") { markCurrent(); showSpan(); }
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (document.getElementById("source")) markCurrent();
  });

  // A step already on the page (sent again after a reconnect) is dropped, and the reconnect URL moves on
  // to the last step seen, so a fresh EventSource resumes where the old one stopped.
  document.addEventListener("htmx:sseBeforeMessage", function (event) {
    var message = event.detail;
    if (message.type === "step" && message.lastEventId && document.getElementById("ev-" + message.lastEventId)) {
      event.preventDefault();
    }
  });
  document.addEventListener("htmx:sseMessage", function (event) {
    var message = event.detail;
    if (message.type !== "step" || !message.lastEventId) return;
    var live = document.getElementById("live");
    if (live) live.setAttribute("sse-connect", live.getAttribute("sse-connect").replace(/after=\d+/, "after=" + message.lastEventId));
    var empty = document.getElementById("no-steps");
    if (empty) empty.remove();
  });

  // Uploads: show what was chosen or dropped, and light the drop zone while dragging over it.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.type !== "file") return;
    var label = input.closest(".dropzone");
    var chosen = label && label.querySelector(".chosen");
    if (chosen) {
      var names = Array.prototype.map.call(input.files, function (f) { return f.name; });
      chosen.textContent = names.length ? names.length + " file(s): " + names.join(", ") : "";
    }
  });
  ["dragenter", "dragover"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var zone = event.target.closest && event.target.closest(".dropzone");
      if (zone) zone.classList.add("over");
    });
  });
  ["dragleave", "drop"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var zone = event.target.closest && event.target.closest(".dropzone");
      if (zone) zone.classList.remove("over");
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector(".audit")) markCurrent();
  });
})();
