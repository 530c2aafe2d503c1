import { Navigate, useLocation } from 'react-router';
import { paths } from '../app/paths';

/** `/experiment/main-intro` is the old address of the main experiment's intro: it redirects, keeping query and state. */
export default function Route() {
  const { search, state } = useLocation();
  return <Navigate to={`${paths.main}${search}`} state={state} replace />;
}
