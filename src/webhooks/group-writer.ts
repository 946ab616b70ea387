/**
 * Group commit for small writes: items added while a write is running go together in the next one, so
 * under load one statement carries many rows and at idle an item is written at once. Each caller's
 * promise settles with the write that carried its item.
 */
export class GroupWriter<T> {
  private pending: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxSize = 200,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxSize);
      try {
        await this.write(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.writing = false;
  }
}
