import type { Router } from 'express';
import type { ShortLinksService } from './short-links.service';

/**
 * Public (no API key: the customer's phone follows it): `GET /l/{code}` answers 302 to the link's url
 * and counts the click; an unknown code is 404. Outside /v1, so not in the API reference.
 */
export function registerShortLinkRoutes(router: Router, deps: { shortLinks: ShortLinksService }) {
  router.get('/l/:code', async (req, res) => {
    const { url } = await deps.shortLinks.followShortLink({ code: String(req.params.code) });
    // 302, not 301: a browser would cache a permanent redirect and later clicks would go uncounted.
    res.set('Cache-Control', 'no-store').redirect(302, url);
  });
}
