import { createBrowserRouter, type RouteObject } from 'react-router';
import ConsentRoute from '../routes/consent';
import EntryRoute from '../routes/entry';
import NotFoundRoute from '../routes/not-found';
import PreExperimentRoute from '../routes/pre-experiment';
import ResumeRoute from '../routes/resume';
import SelectionRoute from '../routes/selection';
import { Layout } from './layout';
import { paths } from './paths';

/** Screens participants never open are split into their own chunks to keep the first load small. */
const lazyRoute = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] =>
  async () => ({ Component: (await load()).default });

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { path: paths.root, element: <EntryRoute /> },
      { path: paths.introduction, element: <EntryRoute /> },
      { path: paths.selection, element: <SelectionRoute /> },
      { path: paths.consent, element: <ConsentRoute /> },
      { path: paths.pre, element: <PreExperimentRoute /> },
      { path: paths.resume, element: <ResumeRoute /> },
      { path: paths.status, lazy: lazyRoute(() => import('../routes/status')) },
      { path: paths.errorTest, lazy: lazyRoute(() => import('../routes/error-test')) },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
