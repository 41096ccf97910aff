import { existsSync } from 'node:fs';
import { chromium, type Browser, type Locator } from 'playwright-core';

/** Debian's Chromium; Playwright's own browser download is not used. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium with everything that would reach out to the internet turned off (background
 * networking, component updates, sync, QUIC): the tests talk to 127.0.0.1 only.
 */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
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
      ...extraArgs,
    ],
  });
}

/** The duration (s) of an `<audio>` once its metadata has loaded; rejects on a media error. */
export function audioDuration(audio: Locator): Promise<number> {
  return audio.evaluate(
    (element: HTMLAudioElement) =>
      new Promise<number>((resolve, reject) => {
        if (element.readyState >= 1) return resolve(element.duration);
        element.addEventListener('loadedmetadata', () => resolve(element.duration));
        element.addEventListener('error', () => reject(new Error(`media error ${element.error?.code}`)));
        element.load();
      }),
  );
}
