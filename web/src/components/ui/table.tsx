import type { ReactNode } from 'react';
import { Table, type TableProps } from 'react-aria-components';
import './table.css';

/**
 * A React Aria table (a grid: Tab enters it, the arrow keys move within it, Enter opens a row
 * that is a link) styled for the console. Under 48rem each row becomes a card whose cells carry
 * their column's name (CellLabel).
 */
export function DataTable({ className, ...props }: TableProps & { className?: string }) {
  return (
    <div className="data-table-wrap">
      <Table {...props} className={className ? `data-table ${className}` : 'data-table'} />
    </div>
  );
}

/** The column's name inside a cell, shown only where rows are stacked (the header says it otherwise). */
export function CellLabel({ children }: { children: ReactNode }) {
  return (
    <span className="data-table__cell-label" aria-hidden="true">
      {children}
    </span>
  );
}
