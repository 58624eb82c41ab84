/** Most requests one batch carries. */
const MAX_BATCH = 64;
/** Batches on the wire at once; requests arriving meanwhile queue up and go together in the next. */
const MAX_IN_FLIGHT = 2;

interface Pending<Req, Res> {
  request: Req;
  resolve(result: Res): void;
  reject(error: unknown): void;
}

/**
 * Coalesces single requests into batched statements: while `maxInFlight` batches are on the wire,
 * the requests that arrive queue up and go together as the next batch. An idle caller's request is
 * sent at once (no timer), so this adds no latency; a busy server pays one statement, one round trip
 * and one wake-up of a database backend for many requests — on a shared or virtual machine the round
 * trip, not the statement, is most of a short read's cost.
 *
 * `run` answers a batch with one result per request, in order; when it throws, every request of that
 * batch fails with the same error. A request is answered only by the batch it went in, which was sent
 * after it arrived: nothing is read from before the request.
 */
export class Coalescer<Req, Res> {
  private queue: Pending<Req, Res>[] = [];
  private inFlight = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly run: (batch: Req[]) => Promise<Res[]>,
    options: { maxBatch?: number; maxInFlight?: number } = {},
  ) {
    this.maxBatch = options.maxBatch ?? MAX_BATCH;
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  }

  /** The result of one request, from the next batch that has room for it. */
  load(request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = batch === this.queue ? [] : this.queue.slice(this.maxBatch);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async send(batch: Pending<Req, Res>[]): Promise<void> {
    let results: Res[];
    try {
      results = await this.run(batch.map((p) => p.request));
      if (results.length !== batch.length)
        throw new Error(`a batch of ${batch.length} was answered with ${results.length} results`);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
  }
}
