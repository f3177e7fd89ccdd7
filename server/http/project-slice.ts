/**
 * Fairness between projects. The server has one thread, and a request's work mostly runs in one go: a
 * project that keeps many heavy requests coming (lists that scan a large table) used to run one after the
 * other within a single turn of the event loop, and every other project's requests, waiting for that turn
 * to end, waited for all of them.
 *
 * So each project gets a slice of each turn: once it has been busy for `sliceMs`, its next requests wait for
 * a later turn, in order, before their bodies are read; what arrived from other projects meanwhile goes first. Cheap requests fit many to a slice, so a project's throughput barely changes; heavy
 * ones go about one per turn, so another project waits behind one of them, not all.
 */
import type { RequestHandler } from 'express';
import type { RequestContext } from '../handlers/types.js';

interface Share {
  /**
   * When its current slice began: when it became busy, or when it last resumed. Its requests overlap (each
   * waits on the others at times), so the slice is wall time, not a sum of each request's time.
   */
  since: number;
  /** Whether it is giving way until a later turn. */
  yielding: boolean;
  /** Requests waiting for that turn, in order of arrival. */
  waiting: (() => void)[];
  running: number;
}

export function perProjectSlice(sliceMs: number): RequestHandler {
  if (sliceMs <= 0) return (_req, _res, next) => next();
  // Made when a project has a request and dropped when it has none, so idle projects take no room.
  const shares = new Map<string, Share>();

  const forget = (projectId: string, share: Share) => {
    if (!share.yielding && share.running === 0 && share.waiting.length === 0 && shares.get(projectId) === share) shares.delete(projectId);
  };
  /** In the later turn: start the waiting requests one at a time, until the project has used its slice again. */
  const resume = (projectId: string, share: Share) => {
    share.since = performance.now();
    share.yielding = false;
    share.waiting.shift()?.();
    forget(projectId, share);
  };

  return (req, res, next) => {
    const projectId = (res.locals.context as RequestContext | undefined)?.projectId;
    if (!projectId) return next();
    let share = shares.get(projectId);
    if (!share) shares.set(projectId, (share = { since: performance.now(), yielding: false, waiting: [], running: 0 }));
    const mine = share;
    const start = (queued: boolean) => {
      // A client that went away while its request waited needs no answer.
      if (req.destroyed || res.destroyed || res.writableEnded) {
        if (!mine.yielding) mine.waiting.shift()?.();
        return forget(projectId, mine);
      }
      mine.running++;
      let finished = false;
      // Counted up to the moment the response is handed over (its sending is the kernel's work, and may wait on
      // the client): a handler's work ends when it calls `end`.
      const done = () => {
        if (finished) return;
        finished = true;
        mine.running--;
        if (mine.yielding) return;
        if (performance.now() - mine.since >= sliceMs) {
          mine.yielding = true;
          setImmediate(() => resume(projectId, mine));
        } else {
          // Within the slice: the next waiting request (if any) may go at once.
          mine.waiting.shift()?.();
          forget(projectId, mine);
        }
      };
      const end = res.end;
      res.end = function (this: typeof res, ...args: Parameters<typeof res.end>) {
        done();
        return end.apply(this, args);
      } as typeof res.end;
      // `on`, not `once`: `done` runs its work once anyway, and a response closes once, so the wrapper `once`
      // allocates for every request buys nothing.
      res.on('close', done);
      next();
      // A request started from the queue that is still running a turn later lets the next waiting one go, as
      // its end would have (within the slice; else the project gives way). Otherwise a request whose body
      // never comes (a stalled client) held every later request of its project until the request timeout
      // cut it: 20 500 stalled clients kept a bystander unanswered for about 30 s (`make bench`, stalled).
      if (queued) {
        setImmediate(() => {
          if (finished || mine.yielding || mine.waiting.length === 0) return;
          if (performance.now() - mine.since >= sliceMs) {
            mine.yielding = true;
            setImmediate(() => resume(projectId, mine));
          } else mine.waiting.shift()!();
        });
      }
    };
    if (mine.yielding || mine.waiting.length > 0) mine.waiting.push(() => start(true));
    else start(false);
  };
}
