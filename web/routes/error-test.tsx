import { ErrorTestPicker } from '../features/errors/error-test';

export default function ErrorTestRoute() {
  return <ErrorTestPicker />;
}
