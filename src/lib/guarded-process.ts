import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Runs a server (anvil, the embedded PostgreSQL) under a small shell guard that ties its life to ours
 * and keeps our shutdown in our hands:
 * - the guard reads its stdin, a pipe from us, and stops the server when that pipe closes, which the
 *   kernel does when we exit, crash or are killed: no server is left behind;
 * - it runs in a process group of its own, so the Ctrl-C a terminal sends to our whole group reaches
 *   only us, and we stop the server last, after the work that still needs it (a server in our group
 *   would get the SIGINT at once and die under our running jobs);
 * - SIGTERM to the guard is passed on to the server as `stopSignal`.
 */
const GUARD = [
  'exec 3<&0',
  '"$@" <&- &',
  'child=$!',
  `trap 'kill -$STOP_SIGNAL "$child" 2>/dev/null' INT TERM`,
  '( cat <&3 >/dev/null; kill -$STOP_SIGNAL "$child" 2>/dev/null ) &',
  'watcher=$!',
  'while kill -0 "$child" 2>/dev/null; do wait "$child"; done',
  'kill "$watcher" 2>/dev/null',
].join('\n');

export interface GuardedProcess {
  child: ChildProcess;
  /** Stops the server (stopSignal, then SIGKILL after `graceMs`) and waits for it. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnGuarded(
  command: string,
  args: readonly string[],
  options: { stopSignal: 'TERM' | 'INT'; env?: NodeJS.ProcessEnv; uid?: number; gid?: number; name: string },
): GuardedProcess {
  const child = spawn('sh', ['-c', GUARD, options.name, command, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    env: { ...(options.env ?? process.env), STOP_SIGNAL: options.stopSignal },
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    child,
    async stop(graceMs = 5_000) {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
      });
    },
  };
}
