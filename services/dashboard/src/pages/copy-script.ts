import { createHash } from 'node:crypto';
import { SafeHtml } from './html.js';

/**
 * The dashboard's only script: it turns on the "Copy" buttons next to a new key's secret and
 * snippets. The buttons are `hidden` in the HTML, so without script nobody sees a button that
 * does nothing (the values are selectable text either way). The CSP allows exactly this text by
 * its SHA-256, nothing else: no other inline script, no script file, no event-handler attribute.
 */
const COPY_SCRIPT = `
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var source = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-copy') + '-status');
  if (!source || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(source.textContent).then(
      function () { if (status) status.textContent = 'Copied.'; },
      function () { if (status) status.textContent = 'Could not copy: select the text and copy it yourself.'; }
    );
  });
});
`;

/** For the Content-Security-Policy header: `'sha256-…'` of the script element's exact content. */
export const COPY_SCRIPT_CSP_SOURCE = `'sha256-${createHash('sha256').update(COPY_SCRIPT, 'utf8').digest('base64')}'`;

export const copyScriptElement = (): SafeHtml => new SafeHtml(`<script>${COPY_SCRIPT}</script>`);
