import { createBrowserRouter, type RouteObject } from 'react-router';
import EntryRoute from '../routes/entry';
import NotFoundRoute from '../routes/not-found';
import { Layout, RouteLoading } from './layout';
import { paths } from './paths';

/**
 * Only the entry page is in the first download; every other screen is its own chunk, fetched
 * when a participant reaches it, so the first load stays small on a phone.
 */
const lazyRoute = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] =>
  async () => ({ Component: (await load()).default });

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    // Shown while a lazy route's chunk loads on the first visit to it.
    hydrateFallbackElement: <RouteLoading />,
    children: [
      { path: paths.root, element: <EntryRoute /> },
      { path: paths.introduction, element: <EntryRoute /> },
      { path: paths.selection, lazy: lazyRoute(() => import('../routes/selection')) },
      { path: paths.consent, lazy: lazyRoute(() => import('../routes/consent')) },
      { path: paths.pre, lazy: lazyRoute(() => import('../routes/pre-experiment')) },
      { path: paths.mainIntro, lazy: lazyRoute(() => import('../routes/main-intro')) },
      { path: paths.main, lazy: lazyRoute(() => import('../routes/main-experiment')) },
      { path: paths.postSurveyIntro, lazy: lazyRoute(() => import('../routes/post-survey-intro')) },
      { path: paths.postSurvey, lazy: lazyRoute(() => import('../routes/post-survey')) },
      { path: paths.postSurveyDebug, lazy: lazyRoute(() => import('../routes/post-survey')) },
      { path: paths.complete, lazy: lazyRoute(() => import('../routes/complete')) },
      { path: paths.screenedOut, lazy: lazyRoute(() => import('../routes/screened-out')) },
      { path: paths.withdraw, lazy: lazyRoute(() => import('../routes/withdraw')) },
      { path: paths.resume, lazy: lazyRoute(() => import('../routes/resume')) },
      { path: paths.status, lazy: lazyRoute(() => import('../routes/status')) },
      { path: paths.home, lazy: lazyRoute(() => import('../routes/home')) },
      { path: paths.admin, lazy: lazyRoute(() => import('../routes/admin')) },
      { path: paths.modelVerification, lazy: lazyRoute(() => import('../routes/model-verification')) },
      { path: paths.errorTest, lazy: lazyRoute(() => import('../routes/error-test')) },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
