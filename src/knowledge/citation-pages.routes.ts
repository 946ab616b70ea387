import type { Router } from 'express';
import { citationPage } from './citation-page.view';
import { CITATION_PAGE_PATH, type CitationPagesService } from './citation-pages.service';

/**
 * Public (no API key: the customer follows a reply's link): `GET /c/{token}` answers the cited passage's
 * page; a token never issued, or whose source was deleted, is 404. Outside /v1, so not in the API reference.
 */
export function registerCitationPageRoutes(router: Router, deps: { citationPages: CitationPagesService }) {
  router.get(`${CITATION_PAGE_PATH}/:token`, async (req, res) => {
    req.routeTemplate = `${CITATION_PAGE_PATH}/{token}`;
    const page = await deps.citationPages.readPage({ token: String(req.params.token) });
    res.set({ 'Cache-Control': 'private, no-store', 'Referrer-Policy': 'no-referrer' }).type('html').send(citationPage(page));
  });
}
