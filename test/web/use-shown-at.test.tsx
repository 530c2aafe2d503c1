import { renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useShownAt } from '../../web/lib/use-shown-at';

describe('useShownAt', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads the commit, then the start of the frame that paints the step, and again for each new step', () => {
    const frames: FrameRequestCallback[] = [];
    let asked = 0;
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => {
      frames.push(callback);
      return ++asked;
    });
    const cancel = vi.spyOn(window, 'cancelAnimationFrame').mockImplementation(() => {});
    let clock = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);

    const { result, rerender } = renderHook(({ step }) => useShownAt(step), { initialProps: { step: 'initial' } });
    expect(result.current.current).toBe(1000);
    // The render took 80 ms: the frame that shows it starts at 1080.
    frames.shift()!(1080);
    expect(result.current.current).toBe(1080);

    clock = 5000;
    rerender({ step: 'final' });
    expect(result.current.current).toBe(5000);
    // A frame's time never moves the step before its commit.
    frames.shift()!(4990);
    expect(result.current.current).toBe(5000);

    // The same step again is not shown again.
    clock = 6000;
    rerender({ step: 'final' });
    expect(result.current.current).toBe(5000);
    expect(frames).toHaveLength(0);
    // A step left before its frame came cancels it (the third frame asked for).
    rerender({ step: 'survey' });
    expect(frames).toHaveLength(1);
    rerender({ step: 'done' });
    expect(cancel).toHaveBeenLastCalledWith(3);
  });
});
