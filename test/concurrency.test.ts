import { describe, expect, it } from 'vitest';
import { mapBounded, settleBounded } from '../src/concurrency.js';

describe('settleBounded', () => {
  it('keeps item order, never runs more than the limit at once, and captures failures', async () => {
    let running = 0;
    let peak = 0;
    const outcomes = await settleBounded([30, 5, 20, 1, 10, 2], 3, async (delay, index) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, delay));
      running--;
      if (index === 2) throw new Error(`item ${index} failed`);
      return delay * 10;
    });
    expect(peak).toBe(3);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      300,
      50,
      'item 2 failed',
      10,
      100,
      20,
    ]);
  });

  it('answers nothing for no items', async () => {
    expect(await settleBounded([], 4, async () => 1)).toEqual([]);
  });
});

describe('mapBounded', () => {
  it('answers the values in item order', async () => {
    expect(
      await mapBounded([20, 1, 5], 2, async (delay) => {
        await new Promise((resolve) => setTimeout(resolve, delay));
        return delay * 2;
      }),
    ).toEqual([40, 2, 10]);
  });

  it('lets every item finish, then throws the first failure in item order', async () => {
    const finished: number[] = [];
    const run = mapBounded([30, 1, 2], 3, async (delay, index) => {
      await new Promise((resolve) => setTimeout(resolve, delay));
      finished.push(index);
      if (index > 0) throw new Error(`item ${index} failed`);
      return delay;
    });
    await expect(run).rejects.toThrow('item 1 failed');
    expect(finished.sort()).toEqual([0, 1, 2]);
  });
});
