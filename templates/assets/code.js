// A copy button on each code block. Made here, so a page read without scripts shows none.
(function () {
  // The words in the page's language (the header's "ui-strings": the theme's, or wiki.yaml's `ui_strings`).
  var words = document.getElementById("ui-strings");
  var text = words ? JSON.parse(words.textContent).copy : ["Copy", "Copy code", "Copied"];

  function addButton(block) {
    var code = block.querySelector("pre > code");
    if (!code) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    button.textContent = text[0];
    button.setAttribute("aria-label", text[1]);
    var status = document.createElement("span");
    status.className = "copy-status";
    status.setAttribute("role", "status");
    button.addEventListener("click", function () {
      // The line numbers are drawn by CSS, so the text is the code alone.
      navigator.clipboard.writeText(code.textContent).then(function () {
        status.textContent = text[2];
        setTimeout(function () { status.textContent = ""; }, 2000);
      });
    });
    block.appendChild(button);
    block.appendChild(status);
  }

  function start() {
    if (!navigator.clipboard) return;  // only where the page may write to the clipboard (https, localhost)
    document.querySelectorAll(".code-block").forEach(addButton);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
