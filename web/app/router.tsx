import { createBrowserRouter } from 'react-router';
import ErrorTestRoute from '../routes/error-test';
import NotFoundRoute from '../routes/not-found';
import StatusRoute from '../routes/status';
import { Layout } from './layout';
import { paths } from './paths';

export const routes = [
  {
    element: <Layout />,
    children: [
      { path: paths.status, element: <StatusRoute /> },
      { path: paths.errorTest, element: <ErrorTestRoute /> },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
