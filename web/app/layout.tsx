import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigation } from 'react-router';
import { CriticalErrorBanner } from '../components/ui/critical-error-banner';
import { LanguageToggle } from '../components/ui/language-toggle';
import { RateLimitNotice } from '../components/ui/rate-limit-notice';
import { SentBackNotice } from '../components/ui/sent-back-notice';

/** The spec scrolls to the top on every route change. */
function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return null;
}

/** A lazy screen's code is on its way (first load of a route, or a navigation to it). */
export function RouteLoading() {
  const { t } = useTranslation();
  return (
    <p className="page route-loading" aria-busy="true">
      {t('common.loading')}
    </p>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const navigating = useNavigation().state === 'loading';
  return (
    <div className="app">
      {navigating ? <div className="navigation-progress" role="progressbar" aria-label={t('common.loading')} /> : null}
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
        <SentBackNotice />
        <Outlet />
      </main>
      <footer className="app-footer">{t('app.footer')}</footer>
    </div>
  );
}
