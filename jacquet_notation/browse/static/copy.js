// The position page's copy buttons: each copies the ID beside it (data-copy) to the clipboard,
// so that a player can paste a gnubg Position ID or an XGID into another program.
(function () {
  "use strict";
  document.querySelectorAll("button.jacquet-copy").forEach(function (button) {
    button.addEventListener("click", function () {
      var text = button.getAttribute("data-copy");
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard) {
        navigator.clipboard.writeText(text).then(done, function () {});
      }
    });
  });
}());
