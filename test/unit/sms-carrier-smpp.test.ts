import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore, TokenBucket, type Clock } from '../../src/sms/carriers/rate-limiter';
import { concatFromUdh, concatUdh, DATA_CODING_GSM7, DATA_CODING_UCS2, encodeSms } from '../../src/sms/carriers/smpp-encoding';
import {
  classifySubmitStatus,
  ConcatAssembler,
  fromSmppAddress,
  isReceiptEsmClass,
  parseReceipt,
  toSmppAddress,
} from '../../src/sms/carriers/smpp-pdu';

/** A clock that only moves when told to; `sleep` advances it and records what was asked. */
function manualClock(start = 1_000_000): Clock & { t: number; slept: number[] } {
  const clock = {
    t: start,
    slept: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

describe('SMPP token bucket (messages-per-second cap)', () => {
  it('hands out the burst, then one token per 1/rate seconds of clock time', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(10, 2, clock);
    assert.equal(bucket.tryTake(), 0);
    assert.equal(bucket.tryTake(), 0);
    assert.equal(bucket.tryTake(), 100, 'empty: next token in 1/10 s');
    clock.t += 40;
    assert.equal(bucket.tryTake(), 60);
    clock.t += 60;
    assert.equal(bucket.tryTake(), 0);
    clock.t += 10_000;
    assert.equal(bucket.available(), 2, 'never holds more than the burst');
  });

  it('take() waits in order for exactly the tokens it needs: n takes past the burst sleep (n - burst)/rate s', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket(50, 5, clock);
    const start = clock.t;
    await Promise.all(Array.from({ length: 25 }, () => bucket.take()));
    assert.equal(clock.t - start, 400, '20 tokens beyond the burst of 5 at 50/s = 400 ms of clock time');
    assert.ok(clock.slept.every((ms) => ms === 20));
  });

  it('drain() after a throttle empties the bucket', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(10, 10, clock);
    bucket.drain();
    assert.equal(bucket.tryTake(), 100);
  });
});

describe('SMPP submit window', () => {
  it('lets `size` holders in and queues the rest in order', async () => {
    const window = new Semaphore(2);
    const r1 = await window.acquire();
    await window.acquire();
    const order: number[] = [];
    const third = window.acquire().then((release) => (order.push(3), release));
    const fourth = window.acquire().then((release) => (order.push(4), release));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, []);
    assert.equal(window.waiting, 2);
    r1();
    r1(); // a second release of the same permit is ignored
    (await third)();
    (await fourth)();
    assert.deepEqual(order, [3, 4]);
    assert.equal(window.inUse, 1);
  });
});

describe('SMPP encoding', () => {
  it('sends GSM-7 as unpacked septets with extension characters escaped', () => {
    const encoded = encodeSms('a€{');
    assert.equal(encoded.dataCoding, DATA_CODING_GSM7);
    assert.deepEqual([...encoded.parts[0]!], [0x61, 0x1b, 0x65, 0x1b, 0x28]);
  });

  it('splits 161 GSM-7 characters into 153 + 8 and never splits an escape pair', () => {
    assert.equal(encodeSms('x'.repeat(160)).parts.length, 1);
    assert.deepEqual(encodeSms('x'.repeat(161)).parts.map((p) => p.length), [153, 8]);
    const parts = encodeSms(`${'x'.repeat(152)}€${'y'.repeat(10)}`).parts;
    assert.equal(parts[0]!.length, 152, 'the escape pair moves whole to the next part');
    assert.deepEqual([...parts[1]!.subarray(0, 2)], [0x1b, 0x65]);
  });

  it('sends UCS-2 big-endian, 67 code units per part, surrogate pairs kept whole', () => {
    const single = encodeSms('привет');
    assert.equal(single.dataCoding, DATA_CODING_UCS2);
    assert.deepEqual([...single.parts[0]!.subarray(0, 2)], [0x04, 0x3f]);
    const parts = encodeSms(`${'ж'.repeat(66)}😀tail`).parts;
    assert.equal(parts.length, 2);
    assert.equal(parts[0]!.length, 132, 'the emoji does not fit in the 67th unit');
    assert.deepEqual([...parts[1]!.subarray(0, 4)], [0xd8, 0x3d, 0xde, 0x00]);
  });

  it('writes and reads the concatenation UDH (8-bit and 16-bit references)', () => {
    const udh = concatUdh(300, 3, 2);
    assert.deepEqual([...udh], [0x05, 0x00, 0x03, 300 & 0xff, 3, 2]);
    assert.deepEqual(concatFromUdh([udh.subarray(1)]), { ref: 44, total: 3, seq: 2 });
    assert.deepEqual(concatFromUdh([Buffer.from([0x08, 0x04, 0x12, 0x34, 4, 1])]), { ref: 0x1234, total: 4, seq: 1 });
    assert.equal(concatFromUdh([Buffer.from([0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0])]), undefined, 'a port element is not concatenation');
  });
});

describe('SMPP PDU helpers', () => {
  it('maps addresses to TON/NPI and back', () => {
    assert.deepEqual(toSmppAddress('+447700900123'), { addr: '447700900123', ton: 1, npi: 1 });
    assert.deepEqual(toSmppAddress('ACME'), { addr: 'ACME', ton: 5, npi: 0 });
    assert.deepEqual(toSmppAddress('12345'), { addr: '12345', ton: 3, npi: 0 });
    assert.equal(fromSmppAddress('447700900123', 1), '+447700900123');
    assert.equal(fromSmppAddress('447700900123', 0), '+447700900123');
    assert.equal(fromSmppAddress('12345', 3), '12345');
    assert.equal(fromSmppAddress('ACME', 5), 'ACME');
  });

  it('classifies submit_sm statuses: bad destination final, throttling and system errors retryable', () => {
    assert.deepEqual(classifySubmitStatus(0x0b), { status: 'ESME_RINVDSTADR', code: 'invalid_destination', retryable: false });
    assert.deepEqual(classifySubmitStatus(0x58), { status: 'ESME_RTHROTTLED', code: 'carrier_throttled', retryable: true });
    assert.deepEqual(classifySubmitStatus(0x14), { status: 'ESME_RMSGQFUL', code: 'carrier_queue_full', retryable: true });
    assert.equal(classifySubmitStatus(0x08).retryable, true);
    assert.deepEqual(classifySubmitStatus(0x0a), { status: 'ESME_RINVSRCADR', code: 'invalid_sender', retryable: false });
    assert.deepEqual(classifySubmitStatus(0x4242), { status: '0x00004242', code: 'carrier_rejected', retryable: false });
  });

  it('recognises receipts by the esm_class message type bits', () => {
    assert.equal(isReceiptEsmClass(0x04), true);
    assert.equal(isReceiptEsmClass(0x20), true);
    assert.equal(isReceiptEsmClass(0x00), false);
    assert.equal(isReceiptEsmClass(0x40), false, 'UDHI alone is an MO message');
  });

  it('parses the receipt text', () => {
    const text = 'id:0123456789 sub:001 dlvrd:000 submit date:2611220101 done date:2611220102 stat:UNDELIV err:034 text:hello';
    assert.deepEqual(parseReceipt({ text }), { kind: 'final', carrierMessageId: '0123456789', status: 'undelivered', carrierErrorCode: '034' });
    assert.deepEqual(parseReceipt({ text: 'id:abc stat:DELIVRD err:000' }).kind, 'final');
    assert.deepEqual(parseReceipt({ text: 'id:abc sub:001 stat:EXPIRED' }), { kind: 'final', carrierMessageId: 'abc', status: 'expired' });
    assert.deepEqual(parseReceipt({ text: 'id:abc stat:ENROUTE' }), { kind: 'intermediate', carrierMessageId: 'abc' });
    assert.deepEqual(parseReceipt({ text: 'id:abc stat:WEIRD' }), { kind: 'final', carrierMessageId: 'abc', status: 'unknown' });
    assert.deepEqual(parseReceipt({ text: 'hello there' }), { kind: 'unparseable' });
  });

  it('prefers the receipted_message_id / message_state TLVs over the text', () => {
    assert.deepEqual(parseReceipt({ text: 'id:12345 stat:DELIVRD err:000', receiptedMessageId: '3039', messageState: 5 }), {
      kind: 'final',
      carrierMessageId: '3039',
      status: 'undelivered',
      carrierErrorCode: '000',
    });
    assert.deepEqual(parseReceipt({ receiptedMessageId: 'x1', messageState: 2, networkErrorCode: Buffer.from([3, 0, 27]) }), {
      kind: 'final',
      carrierMessageId: 'x1',
      status: 'delivered',
      carrierErrorCode: 'net3:27',
    });
  });

  it('reassembles concatenated parts in any order, once, and forgets stale partials', () => {
    let now = 0;
    const assembler = new ConcatAssembler(60_000, () => now);
    assert.equal(assembler.add('a|b', { ref: 7, total: 3, seq: 3 }, 'C'), undefined);
    assert.equal(assembler.add('a|b', { ref: 7, total: 3, seq: 1 }, 'A'), undefined);
    assert.equal(assembler.add('x|b', { ref: 7, total: 3, seq: 2 }, 'other sender'), undefined);
    assert.equal(assembler.add('a|b', { ref: 7, total: 3, seq: 2 }, 'B'), 'ABC');
    assert.equal(assembler.pending, 1);
    assert.equal(assembler.add('a|b', { ref: 9, total: 1, seq: 1 }, 'single'), 'single');
    now += 60_001;
    assert.equal(assembler.sweep(), 1);
    assert.equal(assembler.pending, 0);
  });
});
