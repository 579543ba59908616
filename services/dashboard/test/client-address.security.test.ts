import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PASSWORD, registerUser, startDashboardSystem, type DashboardSystem } from './harness.js';
import type { Browser, Page } from './browser.js';

// Identity throttles failed sign-ins per client address. Every sign-in through the dashboard
// reaches the gateway from the dashboard, so without the browser's address passed on, one visitor
// guessing passwords would lock every other visitor out.
let system: DashboardSystem;

beforeAll(async () => {
  system = await startDashboardSystem({
    LOGIN_MAX_FAILURES_PER_ADDRESS: '3',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '100',
    // The test plays the Ingress in front of the dashboard: its X-Forwarded-For names the browser.
    TRUSTED_PROXIES: '127.0.0.0/8',
  });
}, 90_000);
afterAll(async () => system?.stop());

async function signInFrom(browser: Browser, address: string, email: string, password: string): Promise<Page> {
  await browser.get('/sign-in');
  return browser.post('/sign-in', { email, password }, { headers: { 'x-forwarded-for': address } });
}

describe('the browser address reaches identity through the dashboard', () => {
  it("one visitor's failed sign-ins throttle that visitor's address, not every visitor of the dashboard", async () => {
    const guesser = system.browser();
    const { email: target } = await registerUser(guesser);
    await guesser.post('/sign-out', {});
    const bystander = system.browser();
    const { email: own } = await registerUser(bystander);
    await bystander.post('/sign-out', {});

    for (let i = 0; i < 3; i += 1) expect((await signInFrom(guesser, '198.51.100.10', target, `wrong-${i}`)).status).toBe(401);
    expect((await signInFrom(guesser, '198.51.100.10', target, 'wrong-again')).status).toBe(429);

    // Another address: its own count, so a typo is a plain 401 and the right password signs in.
    expect((await signInFrom(bystander, '198.51.100.20', own, 'a-typo-in-the-password')).status).toBe(401);
    const signedIn = await signInFrom(bystander, '198.51.100.20', own, PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.path).toBe('/');
  }, 60_000);
});
