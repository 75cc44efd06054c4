// The search box: Pagefind's UI over the index of this page's language (pagefind picks it by <html lang>).
window.addEventListener("DOMContentLoaded", function () {
  if (typeof PagefindUI === "undefined" || !document.getElementById("search")) return;
  new PagefindUI({ element: "#search", showSubResults: true, showImages: false });
});
