import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { screenshotDir } from './chromium.js';

/** What one audited page measured: its serious/critical axe findings, its phone height, its answer time. */
export interface PageFigures {
  name: string;
  path: string;
  /** Serious and critical violations only (axe rule ids); the tests expect none. */
  violations: string[];
  /** Every axe finding of any impact, for the record. */
  allFindings: number;
  desktopHeight: number;
  phoneHeight: number;
  phoneWidth: number;
  /** The dashboard's answer to the navigation, request sent to first byte (ms, as the browser timed it). */
  responseMs: number;
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

const BLOCKING = new Set(['serious', 'critical']);

/** axe-core on the page as it is now, WCAG 2.x A and AA rules and axe's best practices. */
async function seriousViolations(page: Page): Promise<{ blocking: string[]; all: number }> {
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations
    .filter((v) => BLOCKING.has(v.impact ?? ''))
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  return { blocking, all: results.violations.length };
}

/**
 * Audits the page shown now: axe at desktop width (and at phone width too with `phoneAxe`: one axe
 * run takes seconds on a busy machine), a screenshot at each width
 * (test-artifacts/screenshots/<name>-1280.png and -390.png), no sideways scroll on the phone. The
 * viewport is back at desktop width afterwards.
 */
export async function auditPage(
  page: Page,
  name: string,
  figures: PageFigures[],
  options: { phoneAxe?: boolean } = {},
): Promise<PageFigures> {
  const shots = await screenshotDir();
  const desktop = await seriousViolations(page);
  await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true });
  const desktopHeight = await page.evaluate<number>('document.documentElement.scrollHeight');
  await page.setViewportSize(PHONE);
  let figure: PageFigures;
  try {
    const phone = options.phoneAxe ? await seriousViolations(page) : { blocking: [], all: 0 };
    await page.screenshot({ path: join(shots, `${name}-390.png`), fullPage: true });
    figure = {
      name,
      path: new URL(page.url()).pathname,
      violations: [...desktop.blocking, ...phone.blocking.map((v) => `390 px: ${v}`)],
      allFindings: desktop.all + phone.all,
      desktopHeight,
      phoneHeight: await page.evaluate<number>('document.documentElement.scrollHeight'),
      phoneWidth: await page.evaluate<number>('document.documentElement.scrollWidth'),
      responseMs: await page.evaluate<number>(
        "(() => { const n = performance.getEntriesByType('navigation')[0]; return n ? Math.round((n.responseStart - n.requestStart) * 10) / 10 : -1; })()",
      ),
    };
  } finally {
    await page.setViewportSize(DESKTOP);
  }
  figures.push(figure);
  expect({ page: name, violations: figure.violations }).toEqual({ page: name, violations: [] });
  expect({ page: name, phoneWidth: figure.phoneWidth }).toEqual({ page: name, phoneWidth: PHONE.width });
  return figure;
}

/** The figures as a table on stdout and as JSON beside the screenshots (for docs/dashboard.md). */
export async function reportFigures(file: string, figures: PageFigures[]): Promise<void> {
  const rows = figures.map(
    (f) =>
      `${f.name.padEnd(28)} ${f.path.padEnd(44)} axe serious/critical ${f.violations.length}, all findings ${String(f.allFindings).padStart(2)}; height 1280 ${String(f.desktopHeight).padStart(5)} px, 390 ${String(f.phoneHeight).padStart(5)} px; answer ${f.responseMs} ms`,
  );
  process.stdout.write(`\nDashboard pages audited (${figures.length}):\n${rows.join('\n')}\n`);
  await writeFile(join(await screenshotDir(), '..', file), `${JSON.stringify(figures, null, 2)}\n`);
}
