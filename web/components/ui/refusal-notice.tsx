import { ApiError, refusalLines } from '../../lib/api';

/**
 * Why the server refused a researcher's file: a lead, what the refusal means in the interface's
 * language (from its code, when `explain` knows it), then the server's own detail, each refused
 * rule on its own line (a multi-line message split too), kept as sent: it names the column, row or
 * value to change.
 */
export function RefusalNotice({ error, lead, testId, explain }: { error: Error; lead: string; testId?: string; explain?: (code: string) => string | undefined }) {
  const meaning = error instanceof ApiError && error.code ? explain?.(error.code) : undefined;
  return (
    <div role="alert" className="notice notice-error" data-testid={testId} data-code={error instanceof ApiError ? (error.code ?? undefined) : undefined}>
      <p>{lead}</p>
      {meaning ? <p data-testid={testId ? `${testId}-meaning` : undefined}>{meaning}</p> : null}
      <ul lang={meaning ? 'en' : undefined}>
        {refusalLines(error)
          .flatMap((line) => line.split('\n'))
          .map((line) => (
            <li key={line}>{line}</li>
          ))}
      </ul>
    </div>
  );
}
