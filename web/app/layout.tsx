import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { CriticalErrorBanner } from '../components/ui/critical-error-banner';
import { LanguageToggle } from '../components/ui/language-toggle';
import { RateLimitNotice } from '../components/ui/rate-limit-notice';
import { ScreenErrorBoundary } from '../components/ui/screen-error-boundary';
import type { SentBack } from '../components/ui/sent-back-notice';

// Shown only to a participant sent here from a page they are not yet due on.
const SentBackNotice = lazy(() => import('../components/ui/sent-back-notice').then((m) => ({ default: m.SentBackNotice })));

/** The spec scrolls to the top on every route change. */
function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return null;
}

/** A lazy screen's code and texts are on their way (the first visit to a route, or a navigation to it). */
export function RouteLoading() {
  const { t } = useTranslation();
  return (
    <>
      <div className="navigation-progress" role="progressbar" aria-label={t('common.loading')} />
      <p className="page route-loading" aria-busy="true">
        {t('common.loading')}
      </p>
    </>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const { pathname, state } = useLocation();
  const sentBack = (state as { sentBack?: SentBack } | null)?.sentBack;
  return (
    <div className="app">
      <ScrollToTop />
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="app-header">
        <Link to="/" className="app-title">
          {t('app.title')}
        </Link>
        <span className="app-tagline">{t('app.tagline')}</span>
        <LanguageToggle />
      </header>
      <main id="main" className="app-main">
        <CriticalErrorBanner />
        <RateLimitNotice />
        {sentBack ? (
          <ScreenErrorBoundary key={pathname} fallback={null}>
            <Suspense fallback={null}>
              <SentBackNotice sentBack={sentBack} />
            </Suspense>
          </ScreenErrorBoundary>
        ) : null}
        {/* One boundary per path: a screen whose chunk is not here yet shows the loading state, one that cannot be fetched says so. */}
        <ScreenErrorBoundary key={pathname}>
          <Suspense fallback={<RouteLoading />}>
            <Outlet />
          </Suspense>
        </ScreenErrorBoundary>
      </main>
      <footer className="app-footer">{t('app.footer')}</footer>
    </div>
  );
}
