export type BadgeTone = 'green' | 'amber' | 'red' | 'grey';

/** The spec's badge colours (part 1 §9): every other state is grey. */
export function badgeTone(state: string): BadgeTone {
  switch (state) {
    case 'ready':
    case 'connected':
    case 'available':
    case 'healthy':
      return 'green';
    case 'warning':
      return 'amber';
    case 'error':
    case 'disconnected':
      return 'red';
    default:
      return 'grey';
  }
}

export function StatusBadge({ state, label }: { state: string; label: string }) {
  return (
    <span className={`badge badge-${badgeTone(state)}`} data-state={state} data-tone={badgeTone(state)}>
      {label}
    </span>
  );
}
