import { useState, type ReactNode } from 'react';
import { Button, Cell, Column, Row, Table, TableBody, TableHeader } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZES } from '../../../worker/schemas/admin-constants';

export type ColumnDef<T> = { id: string; label: string; render: (row: T) => ReactNode };

/** One admin table (react-aria's accessible grid) inside its own horizontal scroller. */
export function DataTable<T extends { id: number }>({ label, columns, rows }: { label: string; columns: ColumnDef<T>[]; rows: T[] }) {
  const { t } = useTranslation();
  return (
    <div className="table-scroll">
      <Table aria-label={label} className="table admin-table">
        <TableHeader columns={columns}>{(c) => <Column isRowHeader={c.id === 'id'}>{c.label}</Column>}</TableHeader>
        {/* The cells depend on the columns (and their language), not only on the rows. */}
        <TableBody items={rows} dependencies={[columns]} renderEmptyState={() => <p className="table-empty">{t('admin.dashboard.empty')}</p>}>
          {(row) => (
            <Row columns={columns}>
              {(c) => <Cell>{c.render(row)}</Cell>}
            </Row>
          )}
        </TableBody>
      </Table>
    </div>
  );
}

export type PageState = { size: number; page: number };
/** A list's page as the admin API's query takes it. */
export const page = (state: PageState) => ({ limit: String(state.size), offset: String(state.page * state.size) });
/** A list's paging, from the first page of 20 (each tab mounts afresh, so it starts there). */
export const usePaging = () => useState<PageState>({ size: 20, page: 0 });

/** Page size (20 … 1000, the largest meaning "all"), previous/next and the range shown. */
export function Paging({ state, total, onChange }: { state: PageState; total: number; onChange: (next: PageState) => void }) {
  const { t } = useTranslation();
  const from = total === 0 ? 0 : state.page * state.size + 1;
  const to = Math.min(total, (state.page + 1) * state.size);
  const largest = PAGE_SIZES[PAGE_SIZES.length - 1];
  return (
    <div className="paging">
      <label>
        {t('admin.dashboard.paging.pageSize')}{' '}
        <select value={state.size} onChange={(e) => onChange({ size: Number(e.target.value), page: 0 })}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size === largest ? t('admin.dashboard.paging.all', { size }) : size}
            </option>
          ))}
        </select>
      </label>
      <Button className="button button-small" isDisabled={state.page === 0} onPress={() => onChange({ ...state, page: state.page - 1 })}>
        {t('admin.dashboard.paging.previous')}
      </Button>
      <span className="paging-range" aria-live="polite">
        {total === 0 ? t('admin.dashboard.paging.empty') : t('admin.dashboard.paging.range', { from, to, total })}
      </span>
      <Button className="button button-small" isDisabled={to >= total} onPress={() => onChange({ ...state, page: state.page + 1 })}>
        {t('admin.dashboard.paging.next')}
      </Button>
    </div>
  );
}
