// The search box: Pagefind's UI over the shards of this page's language (pagefind/shards.js lists them),
// the first as its own bundle and the others merged into it (results of all, ordered by score).
window.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("search");
  var shards = window.pipelineSearchShards;
  if (typeof PagefindUI === "undefined" || !box || !shards) return;
  var langs = Object.keys(shards);
  var own = shards[document.documentElement.lang] || shards[langs[0]];
  var ui = document.querySelector('script[src*="pagefind/pagefind-ui.js"]');
  if (!own || !own.length || !ui) return;
  var root = new URL(ui.src).pathname.replace(/pagefind-ui\.js$/, "");  // the search folder, whatever the base URL
  var site = root.replace(/pagefind\/$/, "");
  new PagefindUI({
    element: "#search", showSubResults: true, showImages: false, bundlePath: root + own[0], baseUrl: site,
    mergeIndex: own.slice(1).map(function (folder) { return { bundlePath: root + folder, baseUrl: site }; })
  });
});
