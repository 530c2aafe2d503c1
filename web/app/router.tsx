import { createBrowserRouter, type RouteObject } from 'react-router';
import NotFoundRoute from '../routes/not-found';
import { Layout } from './layout';
import { paths } from './paths';

/** Screens participants never open are split into their own chunks to keep the first load small. */
const lazyRoute = (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] =>
  async () => ({ Component: (await load()).default });

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { path: paths.status, lazy: lazyRoute(() => import('../routes/status')) },
      { path: paths.errorTest, lazy: lazyRoute(() => import('../routes/error-test')) },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
