import { IP_ALLOW_LIST_MAX_ENTRIES, parseCidr } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';

/** A key's allow-list on its page: the ranges, or that any address may use it. */
export function describeIpAllowList(list: readonly string[] | null): string {
  return list === null || list.length === 0 ? 'any address' : list.join(', ');
}

/** The list as the textarea shows it: one range per line. */
export const ipAllowListText = (list: readonly string[] | null): string => (list ?? []).join('\n');

/**
 * The textarea's text (one range per line, blank lines ignored; empty: any address) as a list, or what is wrong
 * in the user's words, naming the line. The gateway checks again (the same parseCidr), so this is for the message.
 */
export function ipAllowListFromForm(text: string): { ok: true; ipAllowList: string[] | null } | { ok: false; message: string } {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  if (lines.length === 0) return { ok: true, ipAllowList: null };
  if (lines.length > IP_ALLOW_LIST_MAX_ENTRIES) return { ok: false, message: `At most ${IP_ALLOW_LIST_MAX_ENTRIES} ranges, one per line.` };
  for (const [index, line] of lines.entries()) {
    const range = parseCidr(line);
    if (typeof range === 'string') return { ok: false, message: `Line ${index + 1}, “${line}”: ${range}.` };
  }
  return { ok: true, ipAllowList: lines };
}

const HINT =
  'Optional. The addresses the key may be used from: one IPv4 or IPv6 range per line, e.g. 203.0.113.0/24 or 2001:db8::/32 (a bare address is that one address), at most 100. Empty: any address. Requests from elsewhere get 403 ip_not_allowed.';

/** The allow-list textarea; its name is `ipAllowList`, the field the gateway's 400 details name. */
export function ipAllowListField(value: string, error: string | undefined, focused: boolean): SafeHtml {
  const id = 'field-ipAllowList';
  const described = [`${id}-hint`, error ? `${id}-error` : null].filter((x) => x !== null).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
      <label for="${id}">Allowed addresses</label>
      <p class="hint" id="${id}-hint">${HINT}</p>
      ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}
      <textarea id="${id}" name="ipAllowList" rows="4" cols="40" maxlength="6500" placeholder="203.0.113.0/24" autocomplete="off" spellcheck="false" aria-describedby="${described}"${error ? html` aria-invalid="true"` : ''}${focused ? html` autofocus` : ''}>${value}</textarea>
    </div>`;
}
