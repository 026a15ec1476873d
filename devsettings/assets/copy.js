// A Copy button beside each secret (input[data-copy]): a convenience
// only; the secret is selectable without it.
document.querySelectorAll("input[data-copy]").forEach(function (input) {
  var button = document.createElement("button");
  button.type = "button";
  button.textContent = "Copy";
  button.setAttribute("aria-label", "Copy " + (input.labels && input.labels[0] ? input.labels[0].textContent : "secret"));
  var status = document.createElement("span");
  status.setAttribute("role", "status");
  status.className = "copied";
  button.addEventListener("click", function () {
    input.select();
    var done = function () { status.textContent = "Copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
  input.after(button, status);
});
