import { html } from '../../platform/html';
import { layout } from './layout';

/** The sign-in page (no session yet): email and password, or a secret key. */
export function signInPage(input: { error?: string; email?: string }) {
  return layout({
    title: 'Sign in',
    body: html`<div class="sign-in"><h1>Sign in to the console</h1>
    ${input.error ? html`<p class="error-banner" role="alert">${input.error}</p>` : ''}
    <form method="post" action="/console/sign-in" class="card"><h2>With your email</h2>
      <label>Email <input name="email" type="email" autocomplete="username" value="${input.email ?? ''}"></label>
      <label>Password <input name="password" type="password" autocomplete="current-password"></label>
      <button class="button primary">Sign in</button></form>
    <form method="post" action="/console/sign-in" class="card"><h2>With a secret key</h2>
      <label>Secret key <span class="hint">sk_test_… (test data) or sk_live_… (live data)</span><input name="secret_key" type="password" autocomplete="off" placeholder="sk_test_…"></label>
      <button class="button">Sign in with key</button></form>
    <p class="muted">Running locally? <code>npm start</code> prints a test key and a one-time link that signs a browser in.</p></div>`,
  });
}
