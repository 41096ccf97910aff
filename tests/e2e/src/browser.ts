import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; Playwright's own browser download is not used. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium with everything that would reach out to the internet turned off (background
 * networking, component updates, sync, QUIC): the tests talk to 127.0.0.1 only.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `The dashboard tests need Chromium at ${CHROMIUM}: install it with \`apt-get install chromium\` ` +
        '(Debian), or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--disable-gpu',
    ],
  });
}
