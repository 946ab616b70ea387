import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorOf, readAgentForm } from '../../src/console/agent-form';
import { AppError } from '../../src/domain/errors';
import { assertOutboundUrl } from '../../src/platform/outbound-http';

describe('console agent form: a live tool endpoint on plain http (M5)', () => {
  it('shows url_not_allowed next to the endpoint field instead of failing the page', () => {
    const form = readAgentForm({ name: 'Support', 'tools.0.name': 'lookup_order', 'tools.0.endpoint': 'http://api.acme.example/orders' });
    let err: unknown;
    try {
      // What AgentsService.validateConfig throws for a live agent (requireHttps follows the mode).
      assertOutboundUrl(form.tools[0]!.endpoint, { allowPrivate: false, requireHttps: true }, 'tools.0.endpoint');
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof AppError && err.code === 'url_not_allowed');
    const errors = fieldErrorOf(err, form);
    assert.deepEqual(Object.keys(errors), ['tools.0.endpoint']);
    assert.match(errors['tools.0.endpoint']!, /must use https/);
  });
});

describe('console agent form: locale fallback (issue 30)', () => {
  it('keeps locale_fallback through the form: off stays off after an edit, on stays on', async () => {
    const { AgentConfigSchema } = await import('../../src/agents/agent.schemas');
    const { configToForm, formToConfig } = await import('../../src/console/agent-form');
    for (const localeFallback of [false, true]) {
      const config = AgentConfigSchema.parse({ name: 'Support', channels: ['chat'], locales: ['en', 'de'], instructions: 'Help.', knowledge_bases: [], locale_filter_key: 'locale', locale_fallback: localeFallback });
      const form = configToForm(config);
      assert.equal(form.locale_fallback, localeFallback);
      const back = formToConfig(form);
      assert.deepEqual(back.errors, {});
      assert.equal(back.config?.locale_fallback, localeFallback);
    }
    // What the browser posts: a checked box sends "1", an unchecked one nothing.
    assert.equal(readAgentForm({ name: 'Support', locale_fallback: '1' }).locale_fallback, true);
    assert.equal(readAgentForm({ name: 'Support' }).locale_fallback, false);
  });
});
