// A passkey for the browser tests and benches: Chromium's virtual authenticator (CDP WebAuthn) on a
// page, a platform authenticator with resident keys that verifies the user and answers at once.
import type { BrowserContext, Page } from 'playwright-core';

/** Adds a virtual authenticator to `page` of `context`. */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
