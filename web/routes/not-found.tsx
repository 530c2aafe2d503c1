import { NotFound } from '../features/errors/not-found';

export default function NotFoundRoute() {
  return <NotFound />;
}
