/**
 * Talking to a forked child (a bench server or load process) over its IPC channel: wait for its next message of
 * one type, sending it a message first when asked.
 */
import type { ChildProcess } from 'node:child_process';

/** The child's next message of type `replyType`; when `send` is given, `{ type: send, ...extra }` is sent first. */
export function replyOf<T>(child: ChildProcess, replyType: string, send?: string, extra: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve) => {
    const listener = (message: { type: string } & T) => {
      if (message.type !== replyType) return;
      child.off('message', listener);
      resolve(message);
    };
    child.on('message', listener);
    if (send !== undefined) child.send({ type: send, ...extra });
  });
}
