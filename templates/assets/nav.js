// Navigation, enhanced: the menu button opens the tree as a drawer (Escape or a click outside closes it), the
// current page is scrolled into view in the tree, and the table of contents marks the heading being read.
// Without JavaScript the button is a link to the tree (#site-nav), which CSS shows as the same drawer.
(function () {
  "use strict";
  function drawer() {
    var button = document.querySelector(".menu-button");
    var nav = document.getElementById("site-nav");
    if (!button || !nav) return;
    var close = nav.querySelector(".menu-close");
    button.setAttribute("role", "button");
    function set(open) {
      document.body.classList.toggle("nav-open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) (nav.querySelector('[aria-current="page"]') || nav.querySelector("a")).focus();
      else button.focus();
    }
    button.addEventListener("click", function (event) {
      event.preventDefault();
      set(!document.body.classList.contains("nav-open"));
    });
    if (close) close.addEventListener("click", function (event) { event.preventDefault(); set(false); });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && document.body.classList.contains("nav-open")) set(false);
    });
    document.addEventListener("click", function (event) {
      if (document.body.classList.contains("nav-open") && !nav.contains(event.target) && !button.contains(event.target)) set(false);
    });
  }
  function current() {
    var link = document.querySelector('.nav-tree a[aria-current="page"]');
    var nav = document.getElementById("site-nav");
    if (link && nav && nav.scrollHeight > nav.clientHeight) {
      nav.scrollTop = link.offsetTop - nav.clientHeight / 3;
    }
  }
  function contents() {
    var links = Array.prototype.slice.call(document.querySelectorAll(".toc a[href^='#']"));
    if (!links.length || !("IntersectionObserver" in window)) return;
    var byId = {};
    var headings = [];
    links.forEach(function (link) {
      var heading = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      if (heading) { byId[heading.id] = link; headings.push(heading); }
    });
    var visible = {};
    function mark() {
      var active = null;
      for (var i = 0; i < headings.length; i++) {
        if (visible[headings[i].id]) { active = headings[i].id; break; }
      }
      if (!active) return;  // between headings: the last one marked stays
      links.forEach(function (link) { link.classList.remove("toc-active"); link.removeAttribute("aria-current"); });
      byId[active].classList.add("toc-active");
      byId[active].setAttribute("aria-current", "location");
    }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) { visible[entry.target.id] = entry.isIntersecting; });
      mark();
    }, { rootMargin: "0px 0px -60% 0px" });
    headings.forEach(function (heading) { observer.observe(heading); });
  }
  function start() { drawer(); current(); contents(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
