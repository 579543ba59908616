import QRCode from 'qrcode';
import { SafeHtml, escapeHtml } from './html.js';

/**
 * A QR code of `text` as inline SVG, rendered on the server (the `qrcode` package): no script, no
 * image request, no style attribute, so the page's Content-Security-Policy needs nothing new.
 * Black on white whatever the theme (a scanner needs the contrast); the text stays on the page too.
 */
export async function qrCodeSvg(text: string, label: string): Promise<SafeHtml> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  // The package's markup (paths of the modules only); the label is ours, escaped.
  return new SafeHtml(
    svg.trim().replace('<svg ', `<svg role="img" aria-label="${escapeHtml(label)}" class="qr-code" width="220" height="220" `),
  );
}
