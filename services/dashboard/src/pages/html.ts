/**
 * The one escaping helper. Templates are written with the `html` tag: every interpolated value is
 * escaped unless it is already SafeHtml (the result of another `html` template), so a value from
 * a user or the gateway cannot become markup by forgetting to escape it.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in text and in quoted attribute values (templates always quote attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

export type Interpolation = SafeHtml | string | number | false | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  for (const [i, value] of values.entries()) out += render(value) + strings[i + 1]!;
  return new SafeHtml(out);
}
