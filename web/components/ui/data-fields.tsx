import { useTranslation } from 'react-i18next';

/** `initial_response_time_ms` → "Initial response time ms": the API's field names, readable. */
const labelOf = (key: string) => {
  const words = key.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrimitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function Value({ value }: { value: unknown }) {
  const { t } = useTranslation();
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  if (typeof value === 'boolean') return <>{value ? t('common.yes') : t('common.no')}</>;
  if (typeof value === 'number') return <>{Number.isInteger(value) ? value : value.toPrecision(6).replace(/\.?0+$/, '')}</>;
  if (typeof value === 'string') return <>{value}</>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">—</span>;
    if (value.every(isPrimitive)) return <>{value.map((v) => String(v)).join(', ')}</>;
    // A list of records with the same fields reads best as a table.
    const columns = [...new Set(value.filter(isRecord).flatMap((v) => Object.keys(v)))];
    if (value.every(isRecord) && columns.every((c) => value.every((v) => isPrimitive((v as Record<string, unknown>)[c] ?? null)))) {
      return (
        <div className="table-scroll">
          <table className="table data-fields-table">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {labelOf(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {value.map((row, i) => (
                <tr key={i}>
                  {columns.map((c) => (
                    <td key={c}>
                      <Value value={(row as Record<string, unknown>)[c]} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    return (
      <ol className="data-fields-list">
        {value.map((v, i) => (
          <li key={i}>
            <Value value={v} />
          </li>
        ))}
      </ol>
    );
  }
  if (isRecord(value)) return <DataFieldList data={value} />;
  return <>{String(value)}</>;
}

function DataFieldList({ data }: { data: Record<string, unknown> }) {
  return (
    <dl className="data-fields">
      {Object.entries(data).map(([key, value]) => (
        <div key={key} className="data-field">
          <dt>{labelOf(key)}</dt>
          <dd>
            <Value value={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A record from the API (a response's details, a model's debug information) as readable fields:
 * nested records as nested lists, lists of like records as tables; the JSON itself stays one click
 * away for copying.
 */
export function DataFields({ data }: { data: unknown }) {
  const { t } = useTranslation();
  return (
    <div className="data-fields-view">
      {isRecord(data) ? <DataFieldList data={data} /> : <Value value={data} />}
      <details className="data-fields-json">
        <summary>{t('common.showJson')}</summary>
        <pre className="json-detail">{JSON.stringify(data, null, 2)}</pre>
      </details>
    </div>
  );
}
