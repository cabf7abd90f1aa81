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

  // Passkeys: registration and sign-in. The server gives the options
  // (base64url in JSON, as WebAuthn's toJSON forms) and a ceremony token;
  // the browser's answer goes back as JSON, and the server sets the
  // session cookie.
  function b64urlToBuf(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function bufToB64url(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function creationOptions(pk) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(pk);
    }
    pk.challenge = b64urlToBuf(pk.challenge);
    pk.user.id = b64urlToBuf(pk.user.id);
    (pk.excludeCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
    return pk;
  }
  function requestOptions(pk) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) {
      return PublicKeyCredential.parseRequestOptionsFromJSON(pk);
    }
    pk.challenge = b64urlToBuf(pk.challenge);
    (pk.allowCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
    return pk;
  }
  function credentialJSON(cred) {
    if (cred.toJSON) return cred.toJSON();
    var r = cred.response, out = { id: cred.id, rawId: bufToB64url(cred.rawId), type: cred.type, response: { clientDataJSON: bufToB64url(r.clientDataJSON) } };
    if (r.attestationObject) out.response.attestationObject = bufToB64url(r.attestationObject);
    if (r.authenticatorData) out.response.authenticatorData = bufToB64url(r.authenticatorData);
    if (r.signature) out.response.signature = bufToB64url(r.signature);
    if (r.userHandle) out.response.userHandle = bufToB64url(r.userHandle);
    return out;
  }
  function wirePasskeys() {
    var status = document.getElementById("passkey-status");
    if (!status) return;
    function say(msg) { status.textContent = msg; }
    function fail(j) { say((j.error || "It did not work.") + (j.hint ? " " + j.hint : "")); }
    function post(url, body, type) {
      var opt = { method: "POST", credentials: "same-origin", body: body };
      if (type) opt.headers = { "Content-Type": type };
      return fetch(url, opt).then(function (res) {
        return res.json().then(function (j) { j.ok = res.ok; return j; });
      });
    }
    if (!window.PublicKeyCredential) {
      say("This browser cannot use passkeys. Try a current browser on this device, or another device.");
      return;
    }
    document.querySelectorAll(".passkey button").forEach(function (b) { b.disabled = false; });
    var next = (document.getElementById("signin-section") || {}).dataset;
    next = next && next.next ? next.next : "";
    var reg = document.getElementById("register-form");
    reg.addEventListener("submit", function (e) {
      e.preventDefault();
      say("Asking your device for a new passkey…");
      post("/signin/register/begin", new URLSearchParams(new FormData(reg)), "application/x-www-form-urlencoded").then(function (j) {
        if (!j.ok) { fail(j); return; }
        return navigator.credentials.create({ publicKey: creationOptions(j.options.publicKey) }).then(function (cred) {
          return post("/signin/register/finish?token=" + encodeURIComponent(j.token), JSON.stringify(credentialJSON(cred)), "application/json");
        }).then(function (k) {
          if (!k.ok) { fail(k); return; }
          say("Registered and signed in.");
          window.location.assign(k.next);
        });
      }).catch(function (err) { say("The passkey was not made: " + err.message); });
    });
    var sin = document.getElementById("signin-form");
    sin.addEventListener("submit", function (e) {
      e.preventDefault();
      say("Asking your device for your passkey…");
      post("/signin/begin", "", "").then(function (j) {
        if (!j.ok) { fail(j); return; }
        return navigator.credentials.get({ publicKey: requestOptions(j.options.publicKey) }).then(function (cred) {
          var url = "/signin/finish?token=" + encodeURIComponent(j.token) + (next ? "&next=" + encodeURIComponent(next) : "");
          return post(url, JSON.stringify(credentialJSON(cred)), "application/json");
        }).then(function (k) {
          if (!k.ok) { fail(k); return; }
          say("Signed in.");
          window.location.assign(k.next);
        });
      }).catch(function (err) { say("You were not signed in: " + err.message); });
    });
  }

  // The forecast control: a slider beside the percent field, each
  // following the other.
  function wireForecast() {
    var field = document.getElementById("forecast-p");
    var slider = document.getElementById("forecast-slider");
    if (!field || !slider) return;
    slider.hidden = false;
    function fromField() {
      var v = parseFloat(field.value);
      if (!isNaN(v) && v >= 0 && v <= 100) slider.value = v;
    }
    fromField();
    slider.addEventListener("input", function () { field.value = slider.value; });
    field.addEventListener("input", fromField);
  }

  function start() {
    wireCopy(document);
    wireSettings();
    wirePasskeys();
    wireForecast();
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
