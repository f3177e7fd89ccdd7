/**
 * Background work that outlives the request that started it (such as generating many vouchers). Work
 * is tracked so that shutdown and tests can wait for it, and failures are logged, never thrown at a
 * request.
 */
export class Jobs {
  private readonly running = new Set<Promise<void>>();
  private readonly stopping: (() => void)[] = [];

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

  /** Registers work to do when the server stops, such as cutting retry delays short. */
  onShutdown(hook: () => void): void {
    this.stopping.push(hook);
  }

  /** Tells every job the server is stopping, then waits for them all to finish. */
  async shutdown(): Promise<void> {
    for (const hook of this.stopping) hook();
    await this.idle();
  }

  get size(): number {
    return this.running.size;
  }
}
