import { useLayoutEffect, useRef } from 'react';

/**
 * When the screen of `step` was first shown, on the page's clock (`performance.now()`): taken when
 * React commits it, then moved to the frame that paints it. A response time runs from there, so
 * the render before the first paint (a chart on a slow phone) is not counted as the participant's.
 * A step committed in a hidden tab starts when the tab shows it (frames wait for it).
 */
export function useShownAt(step: unknown) {
  const shownAt = useRef(performance.now());
  useLayoutEffect(() => {
    const committed = performance.now();
    shownAt.current = committed;
    const frame = requestAnimationFrame((frameStart) => {
      shownAt.current = Math.max(committed, frameStart);
    });
    return () => cancelAnimationFrame(frame);
  }, [step]);
  return shownAt;
}
