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

  // Scroll one pane (not the window) so el sits in its middle.
  function centerIn(container, el) {
    if (!container || !el) return;
    var box = el.getBoundingClientRect(), frame = container.getBoundingClientRect();
    container.scrollTop += box.top - frame.top - (container.clientHeight - box.height) / 2;
    container.scrollLeft += box.left - frame.left - (container.clientWidth - box.width) / 2;
  }

  function scrollable(el) {
    for (var node = el && el.parentElement; node && node !== document.body; node = node.parentElement) {
      var style = getComputedStyle(node);
      if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
    }
    return null;
  }

  // One column (phones, tablets): the panes do not scroll on their own, the window does.
  function oneColumn() {
    var audit = document.querySelector(".audit");
    return !audit || getComputedStyle(audit).gridTemplateColumns.trim().split(/\s+/).length === 1;
  }

  // The span in view in each pane; in one column, the window brought to the span's boxes on the page
  // (else to the highlight in the text), so the page itself is what the audit opens on.
  function showSpan() {
    var mark = document.getElementById("span");
    var pageScroll = document.getElementById("page-scroll");
    var first = pageScroll && pageScroll.querySelector("svg.span-boxes rect");
    if (first) centerIn(pageScroll, first);
    if (!oneColumn()) {
      if (mark) centerIn(scrollable(mark), mark);
      return;
    }
    var target = first || mark;
    if (!target) return;
    var box = target.getBoundingClientRect();
    var bar = document.querySelector(".topbar"), top = bar ? bar.getBoundingClientRect().bottom : 0;
    if (first) {
      // The page from its top when the span's boxes are then on the screen too, else the boxes in the middle.
      var shift = pageScroll.parentElement.getBoundingClientRect().top - top - 8;
      if (box.bottom - shift <= window.innerHeight - 8) { window.scrollBy(0, shift); return; }
    }
    window.scrollBy(0, box.top - top - (window.innerHeight - top - box.height) / 2);
  }

  // Zoom the PDF pages: the boxes are drawn in the image's own coordinates, so they scale with it. The page
  // opens fitted to its pane's width.
  var ZOOMS = [1, 1.5, 2, 3];
  function setZoom(next) {
    var pageScroll = document.getElementById("page-scroll");
    if (!pageScroll) return;
    pageScroll.style.setProperty("--zoom", String(next));
    var level = document.querySelector(".zoom-level");
    if (level) level.textContent = next === 1 ? "fit width" : "×" + next;
    var first = pageScroll.querySelector("svg.span-boxes rect");
    if (first) centerIn(pageScroll, first);
  }
  function zoomBy(step) {
    var pageScroll = document.getElementById("page-scroll");
    if (!pageScroll) return;
    var current = parseFloat(pageScroll.style.getPropertyValue("--zoom")) || 1;
    var index = ZOOMS.indexOf(current);
    setZoom(step === 0 ? 1 : ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, index + step))]);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button.zoom");
    if (button) zoomBy(Number(button.dataset.zoom));
  });
  // + and - zoom the page, 0 fits it to the pane's width.
  document.addEventListener("keydown", function (event) {
    if (!document.getElementById("page-scroll")) return;
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.metaKey || event.ctrlKey || event.altKey) return;
    var step = { "+": 1, "=": 1, "-": -1, "_": -1, "0": 0 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    zoomBy(step);
  });

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

  // After the settle step (htmx swaps classes in it), so the panes have their final size when scrolled.
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!document.getElementById("source")) return;
    markCurrent();
    if (event.detail.target && event.detail.target.id === "source") requestAnimationFrame(showSpan);
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

  // Fold or unfold every step of the run page at once.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-fold]");
    if (!button) return;
    var open = button.dataset.fold === "open";
    document.querySelectorAll("#timeline li.step > details").forEach(function (d) { d.open = open; });
  });

  // Narrow screens: the navigation folds behind the menu button (shown only where this script runs).
  document.addEventListener("DOMContentLoaded", function () {
    var bar = document.querySelector(".topbar"), toggle = bar && bar.querySelector(".menu-toggle");
    if (!toggle) return;
    toggle.hidden = false;
    bar.classList.add("js-menu");
    toggle.addEventListener("click", function () {
      var open = bar.classList.toggle("open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });

  // Take the answer away: copy its Markdown export, or the run's link, to the clipboard.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = document.execCommand("copy");
    area.remove();
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy-url], button[data-copy-path]");
    if (!button) return;
    var status = button.parentElement.querySelector(".copied");
    var say = function (message) { if (status) status.textContent = message; };
    var text = button.dataset.copyPath
      ? Promise.resolve(window.location.origin + button.dataset.copyPath)
      : fetch(button.dataset.copyUrl, { credentials: "same-origin" }).then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.text();
        });
    text.then(copyText).then(function () {
      say(button.dataset.copyPath ? "Link copied." : "Answer copied as Markdown.");
    }).catch(function () {
      say("Could not copy: use the download links instead.");
    });
  });

  // The document picker: chips for the chosen documents, their ids kept in the form's hidden field.
  function syncChips() {
    var field = document.getElementById("id_documents"), chips = document.getElementById("doc-chips");
    if (!field || !chips) return;
    field.value = Array.prototype.map.call(chips.querySelectorAll(".chip"), function (c) { return c.dataset.docid; }).join(",");
  }
  document.addEventListener("click", function (event) {
    var pick = event.target.closest && event.target.closest("button.pick");
    var remove = event.target.closest && event.target.closest("button.chip-x");
    var chips = document.getElementById("doc-chips");
    if (pick && chips) {
      if (!chips.querySelector('.chip[data-docid="' + CSS.escape(pick.dataset.docid) + '"]')) {
        var chip = document.createElement("li"), title = document.createElement("span"), x = document.createElement("button");
        chip.className = "chip"; chip.dataset.docid = pick.dataset.docid;
        title.className = "chip-title"; title.textContent = pick.dataset.title;  // text, never HTML
        x.type = "button"; x.className = "chip-x"; x.textContent = "×"; x.setAttribute("aria-label", "Remove " + pick.dataset.title);
        chip.appendChild(title); chip.appendChild(x); chips.appendChild(chip);
      }
      syncChips();
      // Not refocused: focusing the search box lists the collection again, the pick included.
      var search = document.getElementById("doc-search");
      if (search) search.value = "";
      document.getElementById("doc-results").innerHTML = "";
    } else if (remove) {
      remove.closest(".chip").remove();
      syncChips();
    }
  });
  document.addEventListener("change", function (event) {
    // Document ids belong to one collection: choosing another clears the picks.
    if (event.target.id !== "id_collection") return;
    var chips = document.getElementById("doc-chips"), results = document.getElementById("doc-results");
    if (chips) chips.innerHTML = "";
    if (results) results.innerHTML = "";
    syncChips();
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

  // Earlier text loaded above the highlight would push it down: the text pane keeps what it showed in place.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var link = event.detail.target;
    if (!link.classList || !link.classList.contains("more-text") || !link.classList.contains("before")) return;
    var pane = scrollable(link) || document.scrollingElement;
    var height = pane.scrollHeight;
    // htmx swaps right after this event (no swap delay), so the next frame sees the new height.
    requestAnimationFrame(function () { pane.scrollTop += pane.scrollHeight - height; });
  });

  document.addEventListener("DOMContentLoaded", function () {
    // The audit opens on its first citation: scrolled to it in the text and on the page, not at the top.
    if (!document.querySelector(".audit")) return;
    // A reload opens on the span too, not where the window was scrolled before.
    if ("scrollRestoration" in history) history.scrollRestoration = "manual";
    markCurrent(); showSpan();
  });
  // A "#span" link makes the browser scroll the window to the mark as well; where the panes scroll on
  // their own (wide screens) that only hides the header, so the window goes back to the top. The page images
  // have their size only now, so both panes are centred on the span again.
  window.addEventListener("load", function () {
    if (!document.querySelector(".audit")) return;
    if (!oneColumn()) window.scrollTo(0, 0);
    showSpan();
  });
})();
