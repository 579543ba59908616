import { createHash } from 'node:crypto';
import { SafeHtml } from './html.js';

/**
 * Search-as-you-type for the catalog picker (devices page): after a pause in typing it asks
 * /devices/catalog-search and puts the answer in place of the results, keeping the entry already
 * chosen. Without script the picker's "Search" button does the same with a page load. Allowed by
 * the CSP by its SHA-256, like the copy script.
 */
const PICKER_SCRIPT = `
(function () {
  var input = document.getElementById('field-catalog-q');
  var results = document.getElementById('catalog-results');
  var status = document.getElementById('catalog-status');
  if (!input || !results || !status || !window.fetch || !window.DOMParser) return;
  var timer = null;
  var asked = 0;
  function search() {
    var ticket = ++asked;
    fetch('/devices/catalog-search?q=' + encodeURIComponent(input.value.trim()), { credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (text) {
        if (ticket !== asked) return;
        var answer = new DOMParser().parseFromString(text, 'text/html');
        var fresh = answer.getElementById('catalog-results');
        var said = answer.getElementById('catalog-status');
        if (!fresh || !said) return;
        var checked = results.querySelector('input:checked');
        var kept = checked && checked.value !== '' ? checked.closest('.check') : null;
        results.innerHTML = fresh.innerHTML;
        if (kept && !results.querySelector('input[value="' + checked.value + '"]')) results.children[0].after(kept);
        if (kept) results.querySelector('input[value="' + checked.value + '"]').checked = true;
        status.textContent = said.textContent;
      })
      .catch(function () { if (ticket === asked) status.textContent = 'The catalog cannot be searched right now.'; });
  }
  input.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(search, 250);
  });
  input.addEventListener('keydown', function (event) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    clearTimeout(timer);
    search();
  });
})();
`;

export const PICKER_SCRIPT_CSP_SOURCE = `'sha256-${createHash('sha256').update(PICKER_SCRIPT, 'utf8').digest('base64')}'`;

export const pickerScriptElement = (): SafeHtml => new SafeHtml(`<script>${PICKER_SCRIPT}</script>`);
