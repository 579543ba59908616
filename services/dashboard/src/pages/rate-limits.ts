import { parseRateLimitsText, type RateLimitWindow } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';

const UNIT_WORDS: ReadonlyArray<readonly [number, string, string]> = [
  [86_400, 'day', 'days'],
  [3600, 'hour', 'hours'],
  [60, 'minute', 'minutes'],
  [1, 'second', 'seconds'],
];

/** "per second", "per 10 minutes": the largest whole unit, as the text form writes it. */
function perWindow(windowSeconds: number): string {
  for (const [seconds, one, many] of UNIT_WORDS) {
    if (windowSeconds % seconds === 0) {
      const count = windowSeconds / seconds;
      return count === 1 ? `per ${one}` : `per ${count.toLocaleString('en-US')} ${many}`;
    }
  }
  return `per ${windowSeconds} seconds`;
}

/** A key's limits in words on its card: "20 per second, 50,000 per day"; null: the deployment's default applies. */
export function describeRateLimits(windows: readonly RateLimitWindow[] | null | undefined): string {
  if (!windows || windows.length === 0) return 'deployment default';
  return windows.map((w) => `${w.limit.toLocaleString('en-US')} ${perWindow(w.windowSeconds)}`).join(', ');
}

/** The form's text ("20/1s,50000/1d"; empty: the default) as a list, or what is wrong with it in the user's words. */
export function rateLimitsFromForm(text: string): { ok: true; rateLimits: RateLimitWindow[] | null } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, rateLimits: null };
  try {
    return { ok: true, rateLimits: parseRateLimitsText(text) };
  } catch (err) {
    // parseRateLimitsText names the bad part; its wording is the operators' CLI's, so it is said again plainly.
    return {
      ok: false,
      message: `Write up to 4 limits as <requests>/<window>, separated by commas, e.g. 20/1s,50000/1d (units s, m, h, d; each window once). ${(err as Error).message}`,
    };
  }
}

/** On each card, after the full explanation on the create form: the same rules, shorter. */
export const CARD_HINT =
  "Up to 4 limits as <requests>/<window>, e.g. 20/1s,50000/1d (units s, m, h, d); empty: the deployment default. A limit above the deployment's ceiling is refused.";

const HINT =
  'Optional. Up to 4 limits as <requests>/<window>, separated by commas, e.g. 20/1s,50000/1d for 20 per second and 50,000 per day (units s, m, h, d). Empty: the deployment default. This deployment may set a ceiling; a limit above it is refused and the message names the ceiling.';

/**
 * The limits input, on the create form and on each key's card. `id` is unique on the page; the name is
 * always `rateLimits`, the field the gateway's 400 details name, so its message lands right here.
 */
export function rateLimitsField(id: string, value: string, error: string | undefined, focused: boolean, hint = HINT): SafeHtml {
  const described = [`${id}-hint`, error ? `${id}-error` : null].filter((x) => x !== null).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
      <label for="${id}">Rate limits</label>
      <p class="hint" id="${id}-hint">${hint}</p>
      ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}
      <input id="${id}" type="text" name="rateLimits" value="${value}" maxlength="200" placeholder="20/1s,50000/1d" autocomplete="off" spellcheck="false" aria-describedby="${described}"${error ? html` aria-invalid="true"` : ''}${focused ? html` autofocus` : ''}>
    </div>`;
}
