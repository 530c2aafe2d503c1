import { useQuery } from '@tanstack/react-query';
import { api, resolveApiUrl, unwrap } from '../../lib/api';

/** The URL the status call actually goes to, for the environment card. */
export const statusCallTarget = () => api.api.status.$url().toString() || resolveApiUrl('/api/status');

export function useStatus() {
  return useQuery({
    queryKey: ['status'],
    queryFn: async () => unwrap(await api.api.status.$get()),
    // The fetch wrapper already retries network failures; HTTP errors must not be retried.
    retry: false,
    refetchOnWindowFocus: false,
  });
}
