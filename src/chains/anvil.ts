import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { spawnGuarded } from '../lib/guarded-process.ts';

/** A running local anvil node. */
export interface AnvilNode {
  rpcUrl: string;
  port: number;
  chainId: number;
  /**
   * The anvil process. Its output is drained with no listener once the port is read: a node that runs
   * for days prints on every request, and nothing of that may be kept or scanned (tests hold it).
   */
  child?: ChildProcess;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId: number;
  /** 0 picks a free port. */
  port?: number;
  /** Seconds between blocks; omitted means a block per transaction (automine). */
  blockTime?: number;
  /** File the chain state is loaded from and dumped to, so a restart keeps contracts and balances. */
  stateFile?: string;
  /** Extra CLI arguments, e.g. `['--code-size-limit', '100000']`. */
  args?: string[];
}

const STARTUP_TIMEOUT_MS = 20_000;
/** Characters of anvil's output kept while waiting for its port (enough for the line and an error). */
const STARTUP_OUTPUT_KEPT = 4_096;
/**
 * Block states anvil keeps for reads at past blocks (`eth_call` at the service's final block), all in
 * memory. Without `--prune-history`, anvil moves older states to a folder under ~/.foundry/anvil/tmp that
 * only an orderly exit removes: every killed node left its folder behind, and test and bench runs filled
 * the disk (76 GB seen). 500 is anvil's own in-memory default; reads further back than that fail, which
 * the service retries like any node error.
 */
const STATES_KEPT = 500;

function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  // The platform package ships the real binary; the wrapper's bin.mjs only re-spawns it.
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  return path.join(dir, 'bin', 'anvil');
}

/**
 * Starts anvil from the `@foundry-rs/anvil` npm package and resolves once it listens.
 * The process is killed when the parent exits, so a crashed test run leaves no node behind.
 */
export async function startAnvil(options: AnvilOptions): Promise<AnvilNode> {
  const args = [
    '--port',
    String(options.port ?? 0),
    '--chain-id',
    String(options.chainId),
    '--host',
    '127.0.0.1',
  ];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.stateFile) args.push('--state', options.stateFile, '--state-interval', '5');
  args.push('--prune-history', String(STATES_KEPT));
  args.push(...(options.args ?? []));
  // Under a guard (src/lib/guarded-process.ts): stopped when we go away, and not by our terminal's
  // Ctrl-C before our own orderly shutdown. SIGTERM, so anvil dumps --state before it exits.
  const guarded = spawnGuarded(anvilBinary(), args, { stopSignal: 'TERM', name: 'anvil-guard' });
  const { child } = guarded;

  const port = await new Promise<number>((resolve, reject) => {
    // Only until the port is read: the last few kB for an error message, listeners removed after.
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil did not start within ${STARTUP_TIMEOUT_MS} ms: ${output.slice(-500)}`));
    }, STARTUP_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-STARTUP_OUTPUT_KEPT);
      const match = /Listening on [\d.]+:(\d+)/.exec(output);
      if (match) done(() => resolve(Number(match[1])));
    };
    const onExit = (code: number | null) =>
      done(() => reject(new Error(`anvil exited with code ${code}: ${output.slice(-500)}`)));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      settle();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
  // Keep draining output so a chatty node never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();

  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    port,
    chainId: options.chainId,
    child,
    stop: () => guarded.stop(),
  };
}
