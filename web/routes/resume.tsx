import { ResumePage } from '../features/resume/resume-page';

export default function Route() {
  return <ResumePage />;
}
