import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../lib/api';

/** Session storage flag of part 2 §3 (`auth` = `true`); a hint for this tab only, the server decides. */
const AUTH_FLAG = 'auth';
const setFlag = (on: boolean) => {
  try {
    if (on) window.sessionStorage.setItem(AUTH_FLAG, 'true');
    else window.sessionStorage.removeItem(AUTH_FLAG);
  } catch {
    // Storage blocked: the cookie session still works.
  }
};

const SESSION_KEY = ['admin', 'session'] as const;

/** Whether the server holds a live admin session for this browser (HttpOnly cookie). */
export function useAdminSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      const session = await unwrap(await api.api.admin.session.$get());
      setFlag(session.authenticated);
      return session;
    },
    staleTime: 60_000,
  });
}

export function useAdminLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (password: string) => unwrap(await api.api.admin.login.$post({ json: { password } })),
    onSuccess: (session) => {
      setFlag(true);
      client.setQueryData(SESSION_KEY, session);
    },
  });
}

export function useAdminLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await api.api.admin.logout.$post()),
    onSuccess: (session) => {
      setFlag(false);
      client.removeQueries({ queryKey: ['admin', 'data'] });
      client.setQueryData(SESSION_KEY, session);
    },
  });
}
