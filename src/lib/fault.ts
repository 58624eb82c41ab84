/**
 * Fault injection for crash tests: a process started with `FAULT_POINT=<name>` kills itself with
 * SIGKILL the first time it reaches that point, exactly as a crash there would. Unset (always, outside
 * the tests that spawn worker processes), it does nothing.
 */
export function faultPoint(name: string): void {
  if (process.env.FAULT_POINT === name) process.kill(process.pid, 'SIGKILL');
}
