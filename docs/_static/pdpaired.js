// pdpaired's docs: long API names (pandas.DataFrame.paired.exact_binomial) wrap after
// a dot or an underscore in the side bars, the breadcrumbs and the previous / next
// links, never inside a word (pdpaired.css turns the theme's mid-word breaking off
// there). A <wbr> after each "." and "_" gives the browser those break points.
//
// With #layout-check in the address, the page also reports every such link whose
// text does not fit its box (and how they may wrap), as JSON in
// <pre id="pdpaired-layout-check">: the docs' tests load the built pages in
// headless Chromium (--dump-dom) and read it.
(function () {
  "use strict";
  var AREAS = [
    ".bd-sidebar-primary a",
    ".bd-sidebar-secondary a",
    ".bd-breadcrumbs a",
    ".bd-breadcrumbs .breadcrumb-item",
    ".prev-next-area a",
  ].join(", ");

  function breakAfterDots(el) {
    var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    nodes.forEach(function (node) {
      if (!/[._]/.test(node.data)) return;
      var frag = document.createDocumentFragment();
      var parts = node.data.split(/(?<=[._])/);
      parts.forEach(function (part, i) {
        frag.appendChild(document.createTextNode(part));
        if (i < parts.length - 1) frag.appendChild(document.createElement("wbr"));
      });
      node.parentNode.replaceChild(frag, node);
    });
  }

  function report(links) {
    var cut = [];
    var wrap = {};
    links.forEach(function (el) {
      var box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) return; // not shown at this width
      var style = window.getComputedStyle(el);
      wrap[style.overflowWrap + (style.wordBreak === "normal" ? "" : " " + style.wordBreak)] = true;
      if (el.scrollWidth > el.clientWidth + 1) {
        cut.push({ text: el.textContent.trim(), scroll: el.scrollWidth, client: el.clientWidth });
      }
    });
    var out = document.createElement("pre");
    out.id = "pdpaired-layout-check";
    out.textContent = JSON.stringify({
      checked: links.length,
      cut: cut,
      wrap: Object.keys(wrap).sort(),
    });
    document.body.appendChild(out);
  }

  function run() {
    var links = document.querySelectorAll(AREAS);
    links.forEach(breakAfterDots);
    if (window.location.hash === "#layout-check") report(links);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
