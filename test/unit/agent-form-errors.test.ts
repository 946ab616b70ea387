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
