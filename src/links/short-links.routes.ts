import type { Router } from 'express';
import { linkInterstitialPage } from './link-interstitial.view';
import type { ShortLinksService } from './short-links.service';

/**
 * Public (no API key: the customer's phone follows it): `GET /l/{code}` counts the click and answers 302
 * to the link's url, or a page showing the destination first (test-mode links, live links off the
 * account's verified domains: never an open redirect); an unknown code is 404. Outside /v1, so not in
 * the API reference.
 */
export function registerShortLinkRoutes(router: Router, deps: { shortLinks: ShortLinksService }) {
  router.get('/l/:code', async (req, res) => {
    const { url, livemode, landing } = await deps.shortLinks.followShortLink({ code: String(req.params.code) });
    res.set('Cache-Control', 'no-store');
    if (landing === 'interstitial') {
      res.set('Referrer-Policy', 'no-referrer').type('html').send(linkInterstitialPage({ url, host: URL.canParse(url) ? new URL(url).host : url, livemode }));
      return;
    }
    // 302, not 301: a browser would cache a permanent redirect and later clicks would go uncounted.
    res.redirect(302, url);
  });
}
