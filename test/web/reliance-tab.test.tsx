import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useAdminTexts } from '../../web/features/admin/admin-i18n';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import { RelianceTab } from '../../web/features/admin/reliance-tab';
import { renderScreen } from './render';

const metric = { id: 'agreement', label: 'Agreement fraction', formula: 'final = AI', source: 'a paper', units: 'fraction', range: [0, 1] };
const interval = { mean: 0.5, ci_low: 0.4, ci_high: 0.6, participants: 2, trials: 10, pooled: 0.5 };
const group = (trials: number) => ({
  trials,
  participants: 2,
  fallback_trials: 0,
  fallback_reasons: {},
  metrics: { agreement: interval },
  calibration: [],
  bars_lean_with_ai: { trials: 0, rate: null },
});
const participant = (id: number, agreement: number | null) => ({
  user_id: id,
  user_name: `P${String(id).padStart(7, '0')}`,
  origin: 'participant',
  dataset_type: 'compas',
  condition: 'spec',
  trials: 5,
  included: true,
  quality_flags: [],
  metrics: { agreement },
  metric_trials: { agreement: 5 },
  calibration: [],
  quality: {},
});
/** What the server answers: the kept report (stale or current) with one page of its participants. */
const answer = (stale: boolean, trials: number, offset: number) => ({
  definitions: { metrics: [metric], summary: '', bootstrap: { resamples: 2000, seed: 1, level: 0.95 }, calibration: '', bars_lean_with_ai: '', quality_flags: [] },
  computed: { at: '2026-11-28T10:00:00.000Z', compute_ms: stale ? 9100 : 8800, data_revision: stale ? 7 : 9, current_revision: 9, stale, recomputing: stale },
  exclude_flagged: false,
  include_synthetic: false,
  participants_included: 2000,
  participants_excluded: 0,
  trials,
  overall: group(trials),
  by_alpha: [],
  by_condition: [{ condition: 'spec', ...group(trials) }],
  by_dataset: [],
  condition_differences: [],
  alpha_models: [],
  participants_total: 2000,
  participants_offset: offset,
  participants: [participant(offset + 1, 0.5), participant(offset + 2, null)],
});

function Texts() {
  useAdminTexts();
  return <RelianceTab notify={() => undefined} includeSynthetic={false} completedOnly={false} />;
}
/** The tab with a cache of its own (nothing carried from another test). */
const Tab = () => (
  <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
    <Texts />
  </QueryClientProvider>
);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('RelianceTab', () => {
  it('says a stale report does not count the latest answers, asks again until the current one is served, and pages the table on the server', async () => {
    const asked: URL[] = [];
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        asked.push(url);
        calls++;
        const offset = Number(url.searchParams.get('participants_offset') ?? 0);
        return new Response(JSON.stringify(answer(calls === 1, calls === 1 ? 100 : 101, offset)), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    renderScreen(<Tab />, { lng: 'en' });
    const notice = await screen.findByTestId('reliance-stale');
    expect(notice.textContent).toBe(adminEn.dashboard.reliance.stale);
    expect(screen.getByTestId('reliance-computed').textContent).toContain(adminEn.dashboard.reliance.computedIn.replace('{{seconds}}', '9.1'));
    expect(asked[0]!.searchParams.get('participants_limit')).toBe('20');
    expect(asked[0]!.searchParams.get('participants_sort')).toBe('user_id');
    // The tab asks again by itself (every 2 s) and the notice goes once the current report is served.
    await waitFor(() => expect(screen.queryByTestId('reliance-stale')).toBeNull(), { timeout: 5000 });
    expect(screen.getByTestId('reliance-counts').textContent).toContain('101');
    const polled = calls;
    await new Promise((r) => setTimeout(r, 2500));
    expect(calls).toBe(polled);

    // The next page is the server's: the table shows the rows it sent for that offset.
    const table = screen.getByTestId('reliance-participants');
    expect(within(table).getByText('P0000001')).toBeTruthy();
    screen.getByRole('button', { name: adminEn.dashboard.paging.next }).click();
    await waitFor(() => expect(within(screen.getByTestId('reliance-participants')).queryByText('P0000021')).toBeTruthy());
    expect(asked.at(-1)!.searchParams.get('participants_offset')).toBe('20');
    // It waits on the tab's real 2 s poll and 2.5 s more: past vitest's default 5 s on a loaded machine.
  }, 20_000);

  it('shows the Japanese notice', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify(answer(true, 100, 0)), { status: 200, headers: { 'Content-Type': 'application/json' } })));
    renderScreen(<Tab />, { lng: 'ja' });
    expect((await screen.findByTestId('reliance-stale')).textContent).toBe(adminJa.dashboard.reliance.stale);
  });
});
