// The redemption page's only script, served by the app at /r/assets/redeem.js (REDEEM_SCRIPT_PATH): the
// page's CSP allows scripts from 'self' only, and the page must work with no internet. Plain ES2017, no
// build step, no modules: served as this file is. It hides brand images that fail to load, copies codes,
// filters brands, fills the amount for the chosen card, sends a pick with an Idempotency-Key (a double
// click makes one card), and reloads the server-rendered page once a card has been issued. Its texts
// come from the page, in the page's language (the body's data-texts, data-locale: docs/recipient-language.md).
(function () {
  'use strict';
  var apiBase = location.pathname.replace(/\/+$/, '') + '/api';
  var locale = document.body.getAttribute('data-locale') || 'en-US';
  var texts = JSON.parse(document.body.getAttribute('data-texts') || '{}');
  // A text of the page's language with its {placeholders} filled in.
  function t(key, params) {
    return String(texts[key] || key).replace(/\{([a-zA-Z]+)\}/g, function (whole, name) {
      return params && Object.prototype.hasOwnProperty.call(params, name) ? params[name] : whole;
    });
  }

  function hideBroken(img) { img.hidden = true; }
  document.querySelectorAll('img[data-fallback]').forEach(function (img) {
    if (img.complete && img.naturalWidth === 0) hideBroken(img);
    img.addEventListener('error', function () { hideBroken(img); });
  });

  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () {
      var value = button.getAttribute('data-copy');
      var done = function () { button.textContent = t('copied'); setTimeout(function () { button.textContent = t('copy'); }, 2000); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(value).then(done, function () { selectCode(button); });
      } else {
        selectCode(button);
      }
    });
  });
  function selectCode(button) {
    var code = button.parentNode.querySelector('code');
    var range = document.createRange();
    range.selectNodeContents(code);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    button.textContent = t('selected');
  }

  // A card still issuing: ask the API until none is pending, then show the server's page again.
  if (document.querySelector('[data-card-status="PENDING"]')) {
    var poll = function () {
      fetch(apiBase, { headers: { Accept: 'application/json' }, cache: 'no-store' })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (state) {
          var pending = state && state.cards.some(function (card) { return card.status === 'PENDING'; });
          if (state && !pending) location.reload(); else setTimeout(poll, 1000);
        }, function () { setTimeout(poll, 3000); });
    };
    setTimeout(poll, 800);
  }

  var form = document.getElementById('pick-form');
  if (!form) return;
  var remaining = Number(form.getAttribute('data-remaining'));
  var currency = form.getAttribute('data-currency');
  var amount = document.getElementById('amount');
  var hint = document.getElementById('amount-hint');
  var message = document.getElementById('pick-message');
  var submit = form.querySelector('button[type="submit"]');
  var search = document.getElementById('brand-search');
  var noMatch = document.getElementById('no-match');
  var money = function (cents) {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currency }).format(cents / 100);
  };

  search.addEventListener('input', function () {
    var query = search.value.trim().toLowerCase();
    var shown = 0;
    form.querySelectorAll('fieldset.brand').forEach(function (brand) {
      var match = !query || brand.getAttribute('data-search').indexOf(query) !== -1;
      brand.hidden = !match;
      if (match) shown += 1;
    });
    noMatch.hidden = shown > 0;
  });

  function chosen() { return form.querySelector('input[name="utid"]:checked'); }

  form.addEventListener('change', function (event) {
    var radio = event.target;
    if (radio.name !== 'utid') return;
    message.textContent = '';
    if (radio.getAttribute('data-type') === 'FIXED_VALUE') {
      var face = Number(radio.getAttribute('data-face'));
      amount.value = (face / 100).toFixed(2);
      amount.readOnly = true;
      hint.textContent = t('fixedValue', { value: money(face) });
    } else {
      var min = Number(radio.getAttribute('data-min'));
      var max = Math.min(Number(radio.getAttribute('data-max')), remaining);
      amount.readOnly = false;
      amount.min = (min / 100).toFixed(2);
      amount.max = (max / 100).toFixed(2);
      if (!amount.value || Number(amount.value) * 100 > max || Number(amount.value) * 100 < min) amount.value = '';
      hint.textContent = t('range', { min: money(min), max: money(max) });
      amount.focus();
    }
  });

  // One key per distinct attempt: resending the same pick (double click, retry after a network
  // error) reuses it, so the server makes at most one card for it.
  var attempt = null;
  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var radio = chosen();
    message.className = 'pick-message';
    if (!radio) { message.textContent = t('chooseFirst'); return; }
    var cents = Math.round(Number(amount.value) * 100);
    if (!amount.value || !(cents > 0)) { message.textContent = t('enterAmount'); amount.focus(); return; }
    if (cents > remaining) { message.textContent = t('tooMuch', { remaining: money(remaining) }); amount.focus(); return; }
    var body = JSON.stringify({ utid: radio.value, amountCents: cents });
    if (!attempt || attempt.body !== body) attempt = { body: body, key: newKey() };
    submit.disabled = true;
    message.className = 'pick-message ok';
    message.textContent = t('getting');
    fetch(apiBase + '/cards', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': attempt.key },
      body: body,
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function () {
        if (res.status === 200 || res.status === 201) {
          attempt = null;
          message.textContent = t('onItsWay');
          location.reload();
          return;
        }
        attempt = null;
        submit.disabled = false;
        message.className = 'pick-message';
        // The API's own messages are in English: the page says it in the recipient's language.
        message.textContent = res.status === 429 ? t('tooManyTries') : res.status === 422 ? t('refused') : t('failed');
      });
    }, function () {
      submit.disabled = false;
      message.className = 'pick-message';
      message.textContent = t('offline');
    });
  });
})();
