import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '@/lib/api/api-error';
import { Alert } from './alert';
import { Loading } from './loading';

export interface QueryViewProps<T> {
  query: UseQueryResult<T>;
  /** Shown while the query loads, e.g. "Loading API keys…". */
  loading: string;
  /** The error's title, e.g. "The API keys could not be loaded."; the API's message follows. */
  errorTitle: string;
  children: (data: T) => ReactNode;
}

/** A query's three states as every list page shows them: loading, the error, or the data. */
export function QueryView<T>({ query, loading, errorTitle, children }: QueryViewProps<T>) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError) {
    return (
      <Alert tone="error" title={errorTitle}>
        <p>{errorMessage(query.error)}</p>
      </Alert>
    );
  }
  return children(query.data);
}
