// predictions: small enhancements. Every page works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // Copy buttons: <button data-copy="id"> copies the text of #id.
  function wireCopy(root) {
    root.querySelectorAll("button[data-copy]").forEach(function (btn) {
      var target = document.getElementById(btn.getAttribute("data-copy"));
      if (!target) return;
      btn.hidden = false;
      btn.addEventListener("click", function () {
        var text = target.textContent;
        var status = document.getElementById("copied");
        function done(msg) { if (status) status.textContent = msg; }
        function fallback() {
          var range = document.createRange();
          range.selectNodeContents(target);
          var sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          var ok = false;
          try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
          done(ok ? "Copied." : "Selected: press Ctrl+C (or ⌘C) to copy.");
        }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { done("Copied."); }, fallback);
        } else {
          fallback();
        }
      });
    });
  }

  // Settings builder: picking a preset starts from it; changing a setting
  // refreshes "what will change" and the skill file from the server, which
  // computes both, and takes back an earlier yes.
  function wireSettings() {
    var presetForm = document.getElementById("preset-form");
    var form = document.getElementById("settings-form");
    var review = document.getElementById("review");
    if (!presetForm || !form || !review) return;
    // A click on a preset starts from it at once. Arrow keys only move
    // between the radios (as ARIA's radio group pattern has them), so a
    // keyboard picks with Enter or the button, which then shows.
    var use = document.getElementById("use-preset");
    var byKeys = false;
    presetForm.addEventListener("keydown", function (e) {
      if (e.key && (e.key.indexOf("Arrow") === 0 || e.key === " ")) byKeys = true;
    });
    presetForm.addEventListener("pointerdown", function () { byKeys = false; });
    presetForm.addEventListener("change", function () {
      if (byKeys) { if (use) use.hidden = false; return; }
      presetForm.submit();
    });
    if (use) use.hidden = true;

    var seq = 0;
    function refresh() {
      var query = new URLSearchParams(new FormData(form)).toString();
      var mine = ++seq;
      review.setAttribute("aria-busy", "true");
      fetch("/settings?" + query, { headers: { "Accept": "text/html" } })
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
        .then(function (html) {
          if (mine !== seq) return;
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.getElementById("review");
          if (fresh) {
            review.innerHTML = fresh.innerHTML;
            wireCopy(review);
          }
          doc.querySelectorAll(".setting[data-setting]").forEach(function (el) {
            var mineEl = form.querySelector('.setting[data-setting="' + el.getAttribute("data-setting") + '"]');
            if (mineEl) mineEl.className = el.className;
          });
          history.replaceState(null, "", "/settings?" + query);
          review.removeAttribute("aria-busy");
        })
        .catch(function () { review.removeAttribute("aria-busy"); });
    }
    var timer;
    function later() { clearTimeout(timer); timer = setTimeout(refresh, 200); }
    form.addEventListener("change", later);
    form.addEventListener("input", later);
  }

  // Scroll cues: "swipe the table sideways" shows only while its table
  // is wider than its box (without this script it always shows on phones).
  function fitCues() {
    document.querySelectorAll(".scroll-cue").forEach(function (cue) {
      var box = cue.nextElementSibling;
      if (!box || !box.classList.contains("scroll")) return;
      cue.hidden = box.scrollWidth <= box.clientWidth + 1;
    });
  }

  function start() {
    wireCopy(document);
    wireSettings();
    fitCues();
    var timer;
    window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(fitCues, 100); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
