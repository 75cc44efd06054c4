// Hover and focus previews of links to other pages of the wiki: the target's title, short description and first
// paragraph, from the `preview.json` the build writes beside each article page. Text only (textContent): nothing
// from a page is read as HTML. Without this script, links are plain links.
(function () {
  "use strict";
  var DELAY = 350;
  var cache = {};
  var box = null, shownFor = null, timer = 0;

  function target(link) {
    if (!link || link.closest(".link-preview") || link.classList.contains("new") || link.classList.contains("tag")) return null;
    var url;
    try { url = new URL(link.href, location.href); } catch (e) { return null; }
    if (url.origin !== location.origin || !/\/$/.test(url.pathname) || url.pathname === location.pathname) return null;
    return url.pathname + "preview.json";
  }

  function load(json) {
    if (!cache[json]) {
      cache[json] = fetch(json, { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .catch(function () { return null; });
    }
    return cache[json];
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    node.className = className;
    node.textContent = text;
    return node;
  }

  function show(link, data) {
    hide();
    if (!data || !data.title) return;
    box = document.createElement("div");
    box.className = "link-preview";
    box.id = "link-preview";
    box.setAttribute("role", "tooltip");
    box.appendChild(element("p", "link-preview-title", data.title));
    if (data.description) box.appendChild(element("p", "link-preview-description", data.description));
    if (data.lead) box.appendChild(element("p", "link-preview-lead", data.lead));
    document.body.appendChild(box);
    var rect = link.getBoundingClientRect();
    var left = Math.max(8, Math.min(rect.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - box.offsetWidth - 8));
    var below = rect.bottom + box.offsetHeight + 8 <= window.innerHeight;
    box.style.left = left + "px";
    box.style.top = (below ? rect.bottom + window.scrollY + 6 : rect.top + window.scrollY - box.offsetHeight - 6) + "px";
    link.setAttribute("aria-describedby", "link-preview");
    shownFor = link;
  }

  function hide() {
    clearTimeout(timer);
    if (box) box.remove();
    if (shownFor) shownFor.removeAttribute("aria-describedby");
    box = null;
    shownFor = null;
  }

  function enter(event) {
    var link = event.target.closest && event.target.closest("main a[href]");
    var json = target(link);
    if (!json || link === shownFor) return;
    clearTimeout(timer);
    timer = setTimeout(function () {
      load(json).then(function (data) { if (link.matches(":hover, :focus")) show(link, data); });
    }, event.type === "focusin" ? 0 : DELAY);
  }

  function leave(event) {
    var link = event.target.closest && event.target.closest("a[href]");
    if (link && (link === shownFor || !shownFor)) hide();
  }

  document.addEventListener("mouseover", enter);
  document.addEventListener("focusin", enter);
  document.addEventListener("mouseout", leave);
  document.addEventListener("focusout", leave);
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") hide(); });
})();
