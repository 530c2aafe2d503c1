import { Component, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { logger } from '../../lib/error-log';

/** What a participant sees when a screen's code or texts could not be fetched: the reason, and a reload. */
function ScreenFailed() {
  const { t } = useTranslation();
  return (
    <div className="page" role="alert" data-testid="screen-failed">
      <p className="notice notice-error">{t('app.screenFailed')}</p>
      <button type="button" className="button button-primary" onClick={() => window.location.reload()}>
        {t('app.reload')}
      </button>
    </div>
  );
}

/**
 * Catches a screen that fails to render, above all one whose chunk or texts could not be fetched
 * (a lost connection): the page says so and offers a reload instead of going blank (or shows
 * `fallback`, for a part that can go without). The layout keys it by path, so moving to another
 * screen tries again.
 */
export class ScreenErrorBoundary extends Component<{ children: ReactNode; fallback?: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    logger.error('screen_failed', 'a screen could not be shown', { error: String(error) });
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return this.props.fallback === undefined ? <ScreenFailed /> : this.props.fallback;
  }
}
