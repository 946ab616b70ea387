/**
 * Groups message ids accepted by the API into batches, so one workflow start carries many messages:
 * a batch is flushed when it holds `maxSize` ids or `maxWaitMs` after its first id, whichever comes
 * first. Each caller's promise settles with its batch's flush (the start succeeded or failed), so the
 * API answers 201 only once the message is durably in a workflow.
 */
export class SendBatcher {
  private pending: { id: string; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly flush: (ids: string[]) => Promise<void>,
    private readonly options: { maxSize: number; maxWaitMs: number },
  ) {}

  add(id: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ id, resolve, reject });
      if (this.pending.length >= this.options.maxSize) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), this.options.maxWaitMs);
    });
  }

  private flushNow() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.flush(batch.map((b) => b.id)).then(
      () => batch.forEach((b) => b.resolve()),
      (err) => batch.forEach((b) => b.reject(err)),
    );
  }
}
