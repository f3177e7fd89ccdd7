/**
 * Background work that outlives the request that started it (such as generating many vouchers). Work
 * is tracked so that shutdown and tests can wait for it, and failures are logged, never thrown at a
 * request.
 */
export class Jobs {
  private readonly running = new Set<Promise<void>>();

  start(name: string, work: () => Promise<void>): void {
    const job: Promise<void> = Promise.resolve()
      .then(work)
      .catch((error: unknown) => console.error(`background job ${name} failed`, error))
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  /** Resolves when no job is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  get size(): number {
    return this.running.size;
  }
}
