/** Browsers and clients, most specific first (Edge and Opera say "Chrome" too, Chrome says "Safari"). */
const CLIENTS: readonly [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bFirefox\//, 'Firefox'],
  [/\bChrom(e|ium)\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^(node|undici)\b/i, 'Node.js'],
  [/^okhttp\//, 'OkHttp'],
  [/^python-requests\//, 'Python'],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\b(iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

const MAX_USER_AGENT = 512;

const firstMatch = (text: string, table: readonly [RegExp, string][]): string | undefined =>
  table.find(([pattern]) => pattern.test(text))?.[1];

/**
 * A short label for a session's device from the sign-in's User-Agent ("Firefox on Linux"): what a person
 * recognizes in a list, never the raw header (unbounded, and a fingerprint). Unknown agents are "Unknown device".
 */
export function deviceLabel(userAgent: string | undefined): string {
  if (!userAgent) return 'Unknown device';
  const text = userAgent.slice(0, MAX_USER_AGENT);
  const client = firstMatch(text, CLIENTS);
  const system = firstMatch(text, SYSTEMS);
  if (client && system) return `${client} on ${system}`;
  return client ?? system ?? 'Unknown device';
}
