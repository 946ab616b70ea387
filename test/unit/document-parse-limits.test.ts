import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocument, type DocumentParseLimits } from '../../src/knowledge/ingest/document-parse';

const limits: DocumentParseLimits = {
  maxFileBytes: 20_000_000,
  maxInflatedBytes: 100_000_000,
  maxPages: 1000,
  parseTimeoutMs: 30_000,
  parseMemoryMb: 512,
  parseConcurrency: 2,
};
const html = Buffer.from(`<html><body>${'<div><p>Paragraph about kettles and <b>tea</b>.</p></div>'.repeat(70_000)}</body></html>`);
const parse = (l: Partial<DocumentParseLimits>) => parseDocument({ format: 'html', filename: 'big.html', data: html, limits: { ...limits, ...l } });

describe('document parsing in a worker thread', () => {
  it('stops a parse past its heap cap with file_too_large, and the next parse still works', async () => {
    await assert.rejects(parse({ parseMemoryMb: 32 }), (err: any) => err.code === 'file_too_large' && /32 MB of memory/.test(err.message));
    const doc = await parseDocument({ format: 'markdown', filename: 'a.md', data: Buffer.from('# Title\n\nBody'), limits });
    assert.equal(doc.title, 'Title');
  });

  it('stops a parse past its time limit with file_too_large', async () => {
    await assert.rejects(parse({ parseTimeoutMs: 200 }), (err: any) => err.code === 'file_too_large' && /within 0.2 s/.test(err.message));
  });

  it('refuses bytes over the limit before starting a worker', async () => {
    await assert.rejects(parse({ maxFileBytes: 1000 }), (err: any) => err.code === 'file_too_large');
  });
});
