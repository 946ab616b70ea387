import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

/**
 * A DNS server on loopback that answers TXT queries over UDP (RFC 1035 §4) from a table the test fills:
 * what node's resolver (c-ares) asks a real name server, answered on the wire. A name with no records is
 * NXDOMAIN; anything but a TXT query is answered with no records. Written here rather than taken from a
 * package: answering one record type is forty lines, and the test needs nothing else of DNS.
 */
export class TxtDnsServer {
  private readonly socket = dgram.createSocket('udp4');
  private readonly records = new Map<string, string[]>();
  /** Every name asked, lower-case (a test can check what was looked up). */
  readonly queries: string[] = [];

  /** Adds a TXT record (several values at one name are several records). */
  addTxt(name: string, value: string): void {
    const key = name.toLowerCase();
    this.records.set(key, [...(this.records.get(key) ?? []), value]);
  }

  async start(): Promise<string> {
    this.socket.on('message', (query, peer) => {
      const answer = this.answer(query);
      if (answer) this.socket.send(answer, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.socket.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private answer(query: Buffer): Buffer | undefined {
    if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
    const labels: string[] = [];
    let at = 12;
    while (at < query.length && query[at] !== 0) {
      const length = query[at]!;
      labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
      at += 1 + length;
    }
    const questionEnd = at + 5;
    if (questionEnd > query.length) return undefined;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    this.queries.push(name);
    const values = this.records.get(name);
    const answers = type === 16 && values ? values : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    // QR, the query's RD, RA; NXDOMAIN when the name has no records at all.
    header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (values ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((value) => {
      const bytes = Buffer.from(value, 'utf8');
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length || i === 0; i += 255) {
        const chunk = bytes.subarray(i, i + 255);
        chunks.push(Buffer.from([chunk.length]), chunk);
      }
      const rdata = Buffer.concat(chunks);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      fixed.writeUInt16BE(16, 2); // TXT
      fixed.writeUInt16BE(1, 4); // IN
      fixed.writeUInt32BE(60, 6); // TTL
      fixed.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([fixed, rdata]);
    });
    return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
  }
}
