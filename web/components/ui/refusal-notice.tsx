import { useTranslation } from 'react-i18next';
import { ApiError, refusalLines } from '../../lib/api';

/** What a refusal's code means in the interface's language: the text under `prefix.{code}`, if the screen's texts have one. */
export function useRefusalText(prefix: string) {
  const { t, i18n } = useTranslation();
  return (error: Error): string | undefined => {
    const key = error instanceof ApiError && error.code ? `${prefix}.${error.code}` : null;
    return key && i18n.exists(key) ? t(key) : undefined;
  };
}

/**
 * Why the server refused a researcher's file: a lead, what the refusal means in the interface's
 * language (the text under `texts.{code}`, when there is one), then the server's own detail, each
 * refused rule on its own line (a multi-line message split too), kept as sent: it names the column,
 * row or value to change.
 */
export function RefusalNotice({ error, lead, testId, texts }: { error: Error; lead: string; testId?: string; texts?: string }) {
  const explain = useRefusalText(texts ?? '');
  const meaning = texts ? explain(error) : undefined;
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
