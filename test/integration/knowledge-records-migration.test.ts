import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../support/db';
import * as createKnowledgeRecords from '../../src/db/migrations/20261127T150000-create-knowledge-records';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase(__filename);
});
after(async () => {
  await database?.destroy();
});

describe('migration: knowledge records get ids', () => {
  it('gives every record pushed before it a rec_ id, in the pushed order, and a record_count to its source', async () => {
    const db = database.db as unknown as Kysely<any>;
    // Back to the schema before the migration: records as a JSON array on the source.
    await createKnowledgeRecords.down(db);
    await db.insertInto('accounts').values({ id: 'acct_m', name: 'm', signing_secret: 'whsec_live', test_signing_secret: 'whsec_test' }).execute();
    await db.insertInto('knowledge_bases').values({ id: 'kb_m', account_id: 'acct_m', livemode: false, name: 'Help', description: null, metadata: '{}' }).execute();
    const rows = [
      { title: 'Refund policy', content: 'Refunds within 14 days.', url: 'https://help.example.com/refunds', metadata: { topic: 'billing' } },
      { title: 'Shipping times', content: 'Three to five days.' },
      { title: 'Password reset', content: 'Settings, Security, Reset.' },
    ];
    await db.insertInto('knowledge_sources').values({ id: 'src_m', account_id: 'acct_m', knowledge_base_id: 'kb_m', type: 'record', livemode: false, url: null, file_id: null, records: JSON.stringify(rows), refresh: 'manual', status: 'ready', metadata: '{}' }).execute();

    await createKnowledgeRecords.up(db);
    const records = await db.selectFrom('knowledge_records').selectAll().where('source_id', '=', 'src_m').orderBy('created_at').orderBy('id').execute();
    assert.deepEqual(records.map((r) => r.title), ['Refund policy', 'Shipping times', 'Password reset']);
    for (const r of records) assert.match(r.id, /^rec_[0-9a-f]{24}$/);
    assert.equal(new Set(records.map((r) => r.id)).size, 3);
    assert.deepEqual(records[0]!.metadata, { topic: 'billing' });
    assert.equal(records[0]!.url, 'https://help.example.com/refunds');
    assert.equal(records[1]!.url, null);
    assert.deepEqual(records[1]!.metadata, {});
    const source = await db.selectFrom('knowledge_sources').selectAll().where('id', '=', 'src_m').executeTakeFirstOrThrow();
    assert.equal(source.record_count, 3);
    assert.equal('records' in source, false, 'the JSON column is gone');
    const { rows: cols } = await sql<{ column_name: string }>`select column_name from information_schema.columns where table_schema = ${database.schema} and table_name = 'knowledge_passages' and column_name = 'record_id'`.execute(db);
    assert.equal(cols.length, 1);
  });
});
