import { html, type Html } from '../../platform/html';

/** The body of the console's 404 page for a path no route matched. */
export const notFoundPage = (url: string): Html => html`<h1>Not found</h1><p>Nothing at ${url}. <a href="/console">Back to the console</a></p>`;

/** The body of the console's error page: the error's message with its status. */
export const errorPage = (status: number, message: string): Html =>
  html`<h1>${status === 404 ? 'Not found' : 'That did not work'}</h1><p class="error-banner">${message}</p><p><a href="javascript:history.back()">Go back</a></p>`;
