// What a person reads on a screen: no internal id, JSON pointer, snake_case field name, contract name or
// `METHOD /v1/` path outside the "Technical details" disclosure (`[data-technical]`); no serious or critical axe-core
// violation; nothing wider than a phone.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { ID_PREFIXES } from '../../domain/ids.ts';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const CONTRACT_NAMES = ['IntakeSpec', 'EvaluationPlan', 'WorldSpec', 'ResourceSpec', 'ConceptReview', 'RunManifest', 'MetricSummary'];

/** Each pattern names what it catches, so a failure says which rule a screen broke. */
export const TECHNICAL_PATTERNS: { name: string; pattern: RegExp }[] = [
  { name: 'internal id', pattern: new RegExp(`\\b(?:${ID_PREFIXES.join('|')})_[0-9a-z]{8,}\\b`) },
  { name: 'JSON pointer', pattern: /(?:^|[\s("'])\/[a-z_]+(?:\/[a-z0-9_-]+)+/ },
  { name: 'snake_case field name', pattern: /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/ },
  { name: 'contract name', pattern: new RegExp(`\\b(?:${CONTRACT_NAMES.join('|')})\\b`) },
  { name: 'HTTP path', pattern: /\b(?:GET|POST|PUT|PATCH|DELETE) \/v1\// },
];

/** The visible text of the page outside `[data-technical]` and outside closed `<details>`, one entry per text node. */
export async function visibleText(page: Page): Promise<string[]> {
  // a string, so the service's type check needs no DOM library
  return page.evaluate(`(() => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('[data-technical], script, style, noscript, textarea, .cm-editor')) continue;
      const closed = parent.closest('details:not([open])');
      if (closed && !parent.closest('summary')) continue;
      const style = getComputedStyle(parent);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      const text = node.textContent && node.textContent.trim();
      if (text) out.push(text);
    }
    return out;
  })()`);
}

/** Every technical string a person would read on this screen, with the rule it breaks. */
export async function technicalText(page: Page): Promise<{ rule: string; text: string }[]> {
  const found: { rule: string; text: string }[] = [];
  for (const text of await visibleText(page)) {
    for (const { name, pattern } of TECHNICAL_PATTERNS) {
      if (pattern.test(text)) found.push({ rule: name, text });
    }
  }
  return found;
}

/** axe-core's serious and critical WCAG 2.1 A/AA violations on the current page. */
export async function seriousViolations(page: Page): Promise<{ id: string; impact: string; targets: string[] }[]> {
  // evaluated through the debugging protocol: the app's Content-Security-Policy (script-src 'self') refuses an inline script tag
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(`${AXE_SOURCE}\n;true`);
  return page.evaluate(`(async () => {
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  })()`);
}

/** The document's width in CSS pixels (compare with the viewport's at a phone size). */
export async function documentWidth(page: Page): Promise<number> {
  return page.evaluate('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)');
}

/**
 * A screen a clinician reads, checked at 1280 px and on a 375-px phone: no technical text outside the technical details,
 * no serious axe-core violation, nothing wider than the phone; a screenshot of each (`name`, `name-phone`).
 */
export async function expectReadableScreen(page: Page, name: string): Promise<void> {
  const { expect } = await import('vitest');
  const { screenshot } = await import('./browser.ts');
  expect(await technicalText(page), `${name}: technical text outside the technical details`).toEqual([]);
  expect(await seriousViolations(page), `${name}: axe-core serious or critical violations`).toEqual([]);
  await screenshot(page, name);
  const desktop = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 800 });
  await expect.poll(() => documentWidth(page), { message: `${name}: document width at a 375-px phone` }).toBeLessThanOrEqual(375);
  expect(await technicalText(page), `${name} (phone): technical text`).toEqual([]);
  await screenshot(page, `${name}-phone`);
  if (desktop) await page.setViewportSize(desktop);
}
