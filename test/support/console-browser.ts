import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Registers this test file's `before`/`after` hooks for a Chromium (CHROMIUM_PATH, else /usr/bin/chromium)
 * and returns `signedIn`, which opens a fresh browser context on the console at `baseUrl()` and signs in
 * there with a secret key through the sign-in form; `acceptDialogs` accepts the page's confirm dialogs.
 */
export function useConsoleBrowser(baseUrl: () => string) {
  let browser: Browser | undefined;
  before(async () => {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
  });
  return {
    async signedIn(apiKey: string, opts: { acceptDialogs?: boolean } = {}): Promise<Page> {
      if (!browser) throw new Error('useConsoleBrowser: the browser starts in `before`');
      const page = await (await browser.newContext()).newPage();
      if (opts.acceptDialogs) page.on('dialog', (d) => void d.accept());
      await page.goto(`${baseUrl()}/console/sign-in`);
      await page.fill('input[name=secret_key]', apiKey);
      await page.click('text=Sign in with key');
      await page.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));
      return page;
    },
    /** A fresh browser context signed in as a console user (email and password); `initScript` runs before each page's scripts. */
    async signedInAs(email: string, password: string, opts: { initScript?: string } = {}): Promise<Page> {
      if (!browser) throw new Error('useConsoleBrowser: the browser starts in `before`');
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      if (opts.initScript) await context.addInitScript(opts.initScript);
      const page = await context.newPage();
      await page.goto(`${baseUrl()}/console/sign-in`);
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', password);
      await page.click('button:has-text("Sign in"):not(:has-text("key"))');
      await page.waitForURL((u) => !u.pathname.startsWith('/console/sign-in'));
      return page;
    },
  };
}
