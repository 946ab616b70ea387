import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildTestConfig } from '../support/config';
import { useTestStack } from '../support/stack';
import { buildZip, deflatedEntry, zeroBombEntry } from '../support/zip';

const FIXTURES = path.resolve(__dirname, '../fixtures/knowledge');
const base = buildTestConfig();
const ctx = useTestStack({
  label: __filename,
  worker: false,
  config: { knowledge: { ...base.knowledge, maxFileBytes: 6_000_000, maxPages: 1 } },
});

async function upload(filename: string, data: Buffer, type = 'application/octet-stream') {
  const { apiKey } = await ctx.stack.newAccount();
  const form = new FormData();
  form.append('file', new Blob([data], { type }), filename);
  const started = Date.now();
  const res = await fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  return { status: res.status, body: (await res.json()) as any, ms: Date.now() - started };
}

const contentTypes = deflatedEntry('[Content_Types].xml', Buffer.from('<?xml version="1.0"?><Types/>'));

describe('multipart fields', () => {
  it('refuses a NUL in purpose with 422 parameter_unprocessable, like NUL in JSON, and stores nothing (LOW, Schemathesis)', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const send = (purpose: string[]) => {
      const form = new FormData();
      form.append('file', new Blob(['# Help\n\nHello.'], { type: 'text/markdown' }), 'help.md');
      for (const p of purpose) form.append('purpose', p);
      return fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
    };
    const nul = await send(['kb\u0000x']);
    const body = (await nul.json()) as any;
    assert.equal(nul.status, 422, JSON.stringify(body));
    assert.equal(body.error.code, 'parameter_unprocessable');
    assert.equal(body.error.param, 'purpose');
    assert.equal((await send(['a', 'b'])).status, 400, 'two purpose fields');
    const list = await fetch(`${ctx.stack.baseUrl}/v1/files`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.deepEqual(((await list.json()) as any).data, []);
    assert.equal((await send(['knowledge'])).status, 201);
  });
});

describe('document uploads under limits', () => {
  it('refuses a zip-bomb DOCX whose directory admits its size with 422 file_too_large, fast', async () => {
    const bomb = buildZip([contentTypes, zeroBombEntry('word/document.xml', 200)]);
    const res = await upload('bomb.docx', bomb);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'file_too_large');
    assert.match(res.body.error.message, /inflates to/);
    assert.ok(res.ms < 3000, `${res.ms} ms`);
  });

  it('refuses a zip-bomb DOCX that lies about its size with 422 file_too_large, fast', async () => {
    const bomb = buildZip([contentTypes, zeroBombEntry('word/document.xml', 200, 4096)]);
    const res = await upload('liar.docx', bomb);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'file_too_large');
    assert.ok(res.ms < 3000, `${res.ms} ms`);
  });

  it('refuses a PDF with more pages than allowed, and a file over the byte limit', async () => {
    const pdf = await upload('kettle-manual.pdf', fs.readFileSync(path.join(FIXTURES, 'kettle-manual.pdf')));
    assert.equal(pdf.status, 422);
    assert.equal(pdf.body.error.code, 'file_too_large');
    assert.match(pdf.body.error.message, /2 pages \(at most 1\)/);
    const big = await upload('big.txt', Buffer.alloc(6_500_000, 'a'), 'text/plain');
    assert.equal(big.status, 422);
    assert.equal(big.body.error.code, 'file_too_large');
  });

  it('still reads a real DOCX, and refuses a damaged one as unsupported_file', async () => {
    const ok = await upload('handbook.docx', fs.readFileSync(path.join(FIXTURES, 'handbook.docx')));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const damaged = await upload('damaged.docx', Buffer.concat([Buffer.from('PK'), Buffer.alloc(100, 1)]));
    assert.equal(damaged.status, 422);
    assert.equal(damaged.body.error.code, 'unsupported_file');
  });

  it('parses off the event loop: timers keep firing while a large document is parsed', async () => {
    const html = `<html><body>${'<div><p>Some paragraph text about kettles and <b>tea</b>.</p></div>'.repeat(70_000)}</body></html>`;
    let last = performance.now();
    let worstGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
    }, 10);
    try {
      const res = await upload('large.html', Buffer.from(html), 'text/html');
      assert.equal(res.status, 201, JSON.stringify(res.body));
    } finally {
      clearInterval(ticker);
    }
    assert.ok(worstGap < 3000, `the event loop stalled for ${Math.round(worstGap)} ms`);
  });
});
