import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';

/**
 * The app's one data-fetching cache. Only the screens that fetch through it (status today, the
 * admin screens later) wrap themselves in it, so its code stays out of the participant's first
 * load; they all share this one client, so what one cached another can read.
 */
const queryClient = new QueryClient();

export function QueryCache({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
