import { expect, it, vi } from 'vitest';
import { withTimeout } from '../../src/lib/timeout.ts';

it('answers with the work when it is first, and leaves no timer behind', async () => {
  vi.useFakeTimers();
  try {
    await expect(withTimeout(Promise.resolve(7), 1_000)).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
    const failing = withTimeout(Promise.reject(new Error('own error')), 1_000);
    await expect(failing).rejects.toThrow('own error');
    expect(vi.getTimerCount()).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});

it('rejects with the default or the given message when the time runs out first', async () => {
  vi.useFakeTimers();
  try {
    const never = new Promise<never>(() => {});
    const plain = withTimeout(never, 50);
    const named = withTimeout(never, 80, 'DNS resolution timed out after 80 ms');
    const settled = Promise.allSettled([plain, named]);
    await vi.advanceTimersByTimeAsync(100);
    const [a, b] = await settled;
    expect(a).toMatchObject({ status: 'rejected', reason: { message: 'no answer within 50 ms' } });
    expect(b).toMatchObject({
      status: 'rejected',
      reason: { message: 'DNS resolution timed out after 80 ms' },
    });
    expect(vi.getTimerCount()).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});
