import type { i18n } from 'i18next';
import { lazy, type ComponentType } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { loadScreenTexts } from '../i18n';
import EntryRoute from '../routes/entry';
import { Layout } from './layout';
import { paths } from './paths';

type ScreenModule = { default: ComponentType };

/**
 * The app's routes, declared (not the data router: no screen loads data through the router, and
 * the declarative one is half its download). Only the entry page is in the first download; every
 * other screen is its own chunk, fetched with its texts when a participant reaches it, so the
 * first load stays small on a phone.
 */
export function createAppRoutes(i18n: i18n): () => React.JSX.Element {
  const screen = (load: () => Promise<ScreenModule>) => lazy(async () => (await Promise.all([load(), loadScreenTexts(i18n)]))[0]);
  const PostSurvey = screen(() => import('../routes/post-survey'));
  const screens: [string, ComponentType][] = [
    [paths.selection, screen(() => import('../routes/selection'))],
    [paths.consent, screen(() => import('../routes/consent'))],
    [paths.pre, screen(() => import('../routes/pre-experiment'))],
    [paths.mainIntro, screen(() => import('../routes/main-intro'))],
    [paths.main, screen(() => import('../routes/main-experiment'))],
    [paths.postSurveyIntro, screen(() => import('../routes/post-survey-intro'))],
    [paths.postSurvey, PostSurvey],
    [paths.postSurveyDebug, PostSurvey],
    [paths.complete, screen(() => import('../routes/complete'))],
    [paths.screenedOut, screen(() => import('../routes/screened-out'))],
    [paths.withdraw, screen(() => import('../routes/withdraw'))],
    [paths.resume, screen(() => import('../routes/resume'))],
    [paths.status, screen(() => import('../routes/status'))],
    [paths.home, screen(() => import('../routes/home'))],
    [paths.admin, screen(() => import('../routes/admin'))],
    [paths.modelVerification, screen(() => import('../routes/model-verification'))],
    [paths.errorTest, screen(() => import('../routes/error-test'))],
    // Any other address: the not-found page.
    ['*', screen(() => import('../routes/not-found'))],
  ];

  return function AppRoutes() {
    return (
      <BrowserRouter>
        <Routes>
          <Route element={<Layout />}>
            <Route path={paths.root} element={<EntryRoute />} />
            <Route path={paths.introduction} element={<EntryRoute />} />
            {screens.map(([path, Screen]) => (
              <Route key={path} path={path} element={<Screen />} />
            ))}
          </Route>
        </Routes>
      </BrowserRouter>
    );
  };
}
