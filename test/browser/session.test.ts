// The web app in Chromium against the real service: it is served at / with the API keeping /v1, sign-in errors show
// the envelope's message, and the Settings page creates an API token shown once, which works over HTTP until revoked.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, launchBrowser, newPage, screenshot, signInThroughForm } from '../support/browser.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  service = await startTestService();
  user = await signedInOwner(service, 'web');
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('serving the app', () => {
  it('serves the app at / and for its own routes, while /v1 keeps the API and its JSON 404', async () => {
    const root = await fetch(`${service.url}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/^text\/html/);
    expect(root.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await root.text();
    expect(html).toContain('<div id="root"></div>');

    const deep = await fetch(`${service.url}/projects/proj_doesnotexist`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);

    const health = await http(service, 'GET', '/v1/health');
    expect(health.headers.get('content-type')).toMatch(/^application\/json/);
    expect(health.body).toMatchObject({ status: expect.any(String) });

    const unknown = await http(service, 'GET', '/v1/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('No route GET /v1/no-such-route') });

    const missingAsset = await fetch(`${service.url}/assets/missing-0000.js`);
    expect(missingAsset.status).toBe(404);

    const traversal = await fetch(`${service.url}/..%2f..%2fpackage.json`);
    expect(await traversal.text()).not.toContain('"dependencies"');
  });
});

describe('signing in and out', () => {
  it('shows the error envelope message on a wrong password, signs in, and signs out', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The email or password is wrong.');
    await screenshot(page, 'sign-in-error');

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    // the session is the HttpOnly cookie: nothing the page's script can read
    expect(await page.evaluate('document.cookie')).toBe('');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'crucible_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await screenshot(page, 'projects-empty');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/v1/me')).status);
    expect(me).toBe(401);
    await context.close();
  });

  it('still shows the sign-in page when the browser holds a stale session cookie', async () => {
    const { context, page } = await newPage(browser);
    await context.addCookies([{ name: 'crucible_session', value: 'stale.session.cookie', url: service.url }]);
    await page.goto(`${service.url}/settings`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });
});

describe('API tokens on the Settings page', () => {
  it('creates a token shown once with its 90-day expiry, which works over HTTP until it is revoked', async () => {
    const { context, page } = await newPage(browser);
    await signInThroughForm(page, service, user);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();

    await page.getByLabel('Token name').fill('laptop script');
    // keyboard: the scope checkboxes are reachable and toggled with Space
    const write = page.getByRole('checkbox', { name: 'write' });
    await write.focus();
    await page.keyboard.press('Space');
    await expect(write.isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API token' });
    await dialog.waitFor();
    const secret = (await dialog.getByTestId('token-secret').textContent())!.trim();
    expect(secret.length).toBeGreaterThan(20);
    await expect(dialog.getByRole('button', { name: 'Copy token' }).isVisible()).resolves.toBe(true);
    const expiry = await dialog.getByTestId('token-expiry').textContent();
    expect(expiry).toBeTruthy();
    await screenshot(page, 'token-created');

    // the token works over HTTP, from outside the browser
    const listed = await http(service, 'GET', '/v1/me/api-tokens', { token: secret });
    expect(listed.status).toBe(200);
    const token = listed.body.data.find((t: any) => t.name === 'laptop script');
    expect(token.scopes).toEqual(['read', 'write']);
    const days = (Date.parse(token.expires_at) - Date.parse(token.created_at)) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    const project = await http(service, 'POST', '/v1/projects', { token: secret, body: { title: 'made with the token', org_id: user.org_id } });
    expect(project.status).toBe(201);

    // once the dialog closes, the secret is nowhere in the app, not even after a reload
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    const row = page.getByTestId('token-row').filter({ hasText: 'laptop script' });
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    await row.getByRole('button', { name: 'Revoke token laptop script' }).click();
    await row.getByText('revoked').waitFor();
    await screenshot(page, 'token-revoked');
    const after = await http(service, 'GET', '/v1/me', { token: secret });
    expect(after.status).toBe(401);
    expect(after.body.message).toContain('revoked');

    // the same page on a phone-width screen
    await page.setViewportSize(PHONE);
    await screenshot(page, 'settings-phone');
    await page.setViewportSize(DESKTOP);
    await context.close();
  });
});
