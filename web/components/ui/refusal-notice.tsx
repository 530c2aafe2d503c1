import { refusalLines } from '../../lib/api';

/** Why the server refused a researcher's file: a lead, then each refused rule on its own line (a multi-line message split too). */
export function RefusalNotice({ error, lead, testId }: { error: Error; lead: string; testId?: string }) {
  return (
    <div role="alert" className="notice notice-error" data-testid={testId}>
      <p>{lead}</p>
      <ul>
        {refusalLines(error)
          .flatMap((line) => line.split('\n'))
          .map((line) => (
            <li key={line}>{line}</li>
          ))}
      </ul>
    </div>
  );
}
