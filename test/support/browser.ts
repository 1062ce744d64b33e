// Browser tests: playwright-core driving Debian's Chromium (/usr/bin/chromium, installed by .ci/run when missing)
// against the real service on a loopback port. Screenshots go under test-output/browser/ (gitignored).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import type { TestService, TestUser } from './harness.ts';

export const CHROMIUM_PATH = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/browser/', import.meta.url));
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI and the development machines run as root, where Chromium's sandbox cannot start
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs in through the sign-in form, as a person would. */
export async function signInThroughForm(page: Page, service: TestService, user: Pick<TestUser, 'email' | 'password'>): Promise<void> {
  await page.goto(`${service.url}/`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
