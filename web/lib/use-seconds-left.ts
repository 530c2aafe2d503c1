/**
 * A countdown in whole seconds to a moment on the page's clock (`performance.now()`), read four
 * times a second: the forced wait before the AI's advice and a judgement step's time limit count
 * down with it.
 */
import { useEffect, useState } from 'react';

/** Whole seconds left until `at` (0 once it has passed); null while `at` is not known. */
export function useSecondsLeft(at: number | null): number | null {
  const read = () => (at === null ? null : Math.max(0, Math.ceil((at - performance.now()) / 1000)));
  const [seconds, setSeconds] = useState(read);
  useEffect(() => {
    setSeconds(read());
    if (at === null) return;
    const timer = setInterval(() => setSeconds(read()), 250);
    return () => clearInterval(timer);
    // `read` reads only `at`.
  }, [at]);
  return seconds;
}
