import { useCallback, useRef, useSyncExternalStore } from 'react';
import type { AnswerOutbox, OutboxState } from './outbox';

/** An outbox's state (pending, refused, sending) as React state. */
export function useOutboxState<A extends object>(outbox: AnswerOutbox<A> | null): OutboxState | null {
  const cache = useRef<OutboxState | null>(null);
  const subscribe = useCallback(
    (onChange: () => void) => {
      cache.current = outbox?.state() ?? null;
      if (!outbox) return () => {};
      return outbox.subscribe((state) => {
        cache.current = state;
        onChange();
      });
    },
    [outbox],
  );
  return useSyncExternalStore(subscribe, () => (outbox ? (cache.current ??= outbox.state()) : null));
}
