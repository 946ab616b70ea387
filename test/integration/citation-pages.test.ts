import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CitationPagesService } from '../../src/knowledge/citation-pages.service';
import { createTestDatabase, StatementCounter, type TestDatabase } from '../support/db';

const PUBLIC_BASE_URL = 'https://replies.example.test/';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase(__filename);
  const db = database.db;
  for (const id of ['acct_cite', 'acct_other']) {
    await db.insertInto('accounts').values({ id, name: id, signing_secret: 'whsec_live', test_signing_secret: 'whsec_test' }).execute();
    await db.insertInto('knowledge_bases').values({ id: `kb_${id}`, account_id: id, livemode: false, name: 'Help', description: null, metadata: '{}' }).execute();
  }
  const source = (id: string, type: 'document' | 'record' | 'url', account = 'acct_cite', url: string | null = null) =>
    db.insertInto('knowledge_sources').values({ id, account_id: account, knowledge_base_id: `kb_${account}`, type, livemode: false, url, file_id: null, record_count: null, refresh: 'manual', status: 'ready', metadata: '{}' }).execute();
  await source('src_doc', 'document');
  await source('src_rec', 'record');
  await source('src_url', 'url', 'acct_cite', 'https://help.example.test/returns');
  await source('src_foreign', 'document', 'acct_other');
});
after(async () => {
  await database.destroy();
});

describe('citation pages', () => {
  it('links a reply\'s cited passages with one read and one insert, in their order, whatever their number', async () => {
    const counter = new StatementCounter();
    const pages = new CitationPagesService({ db: database.db.withPlugin(counter), publicBaseUrl: PUBLIC_BASE_URL, publicBaseUrlIsLoopback: false, serverSecret: 'citation-test-secret' });
    const passages = [
      { sourceId: 'src_doc', title: 'Returns', section: 'Damaged items', content: 'A damaged item is replaced free of charge.' },
      { sourceId: 'src_url', title: 'Returns page', section: null, content: 'See our returns page.' },
      { sourceId: 'src_rec', title: 'Order record', section: null, content: 'Orders ship within two days.' },
      { sourceId: 'src_foreign', title: 'Not ours', section: null, content: 'Another account\'s passage.' },
      { sourceId: 'src_doc', title: 'Returns', section: 'Refunds', content: 'Refunds take five days.' },
    ];
    const scope = { accountId: 'acct_cite', livemode: false, runId: 'run_cite' };
    const urls = await pages.linkPassages({ ...scope, passages });
    assert.deepEqual(counter.kinds, ['select', 'insert'], 'one read of the sources and one insert of the pages');
    assert.equal(urls.length, passages.length);
    assert.deepEqual(urls.map((u) => u !== null), [true, false, true, false, true], 'pages for document and record passages of the scope only');
    for (const url of urls.filter((u) => u !== null)) assert.match(url, /^https:\/\/replies\.example\.test\/c\/[A-Za-z0-9_-]{32}$/);
    assert.equal(new Set(urls.filter(Boolean)).size, 3, 'a page per passage');

    const first = await pages.readPage({ token: urls[0]!.split('/c/')[1]! });
    assert.deepEqual(first, { title: 'Returns', section: 'Damaged items', content: 'A damaged item is replaced free of charge.' });
    const last = await pages.readPage({ token: urls[4]!.split('/c/')[1]! });
    assert.equal(last.section, 'Refunds');

    const again = await pages.linkPassages({ ...scope, passages });
    assert.deepEqual(again, urls, 'a retried step makes the same links');
    const stored = await database.db.selectFrom('citation_pages').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), 3, 'and stores nothing new');

    counter.reset();
    assert.deepEqual(await pages.linkPassages({ ...scope, passages: [passages[1]!] }), [null]);
    assert.deepEqual(counter.kinds, ['select'], 'no insert when nothing is paged');
    counter.reset();
    assert.deepEqual(await pages.linkPassages({ ...scope, passages: [] }), []);
    assert.equal(counter.count, 0, 'no statement for no passage');
  });

  it('hands live mode no page while PUBLIC_BASE_URL is unset or loopback (a customer could not open it), and stores none; test mode still gets one', async () => {
    const counter = new StatementCounter();
    const pages = new CitationPagesService({ db: database.db.withPlugin(counter), publicBaseUrl: 'http://127.0.0.1:3000', publicBaseUrlIsLoopback: true, serverSecret: 'citation-test-secret' });
    const passages = [{ sourceId: 'src_doc', title: 'Returns', section: null, content: 'Live customers never see a loopback page.' }];
    assert.deepEqual(await pages.linkPassages({ accountId: 'acct_cite', livemode: true, runId: 'run_live', passages }), [null]);
    assert.equal(counter.count, 0, 'nothing read or stored');
    const [testUrl] = await pages.linkPassages({ accountId: 'acct_cite', livemode: false, runId: 'run_test', passages });
    assert.match(testUrl ?? '', /^http:\/\/127\.0\.0\.1:3000\/c\/[A-Za-z0-9_-]{32}$/);
  });
});
