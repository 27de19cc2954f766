import type { UseInfiniteQueryResult, UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '@/lib/api/api-error';
import { Alert } from './alert';
import { Button } from './button';
import { Loading } from './loading';

export interface QueryViewProps<T> {
  query: UseQueryResult<T> | UseInfiniteQueryResult<T>;
  /** While the query loads: a label for <Loading> ("Loading API keys…"), or what to show instead. */
  loading: string | ReactNode;
  /** The error's title ("The API keys could not be loaded."); the API's message follows. */
  errorTitle?: string;
  /** The error told the page's own way (a 404 as "not found"), instead of the alert. */
  renderError?: (error: Error) => ReactNode;
  /** "Try again" under the error: for a query the whole page depends on. */
  canRetry?: boolean;
  children: (data: T) => ReactNode;
}

/** A query's three states as every page shows them: loading, the error, or the data. */
export function QueryView<T>({
  query,
  loading,
  errorTitle,
  renderError,
  canRetry,
  children,
}: QueryViewProps<T>) {
  if (query.isPending) return typeof loading === 'string' ? <Loading label={loading} /> : loading;
  if (query.isError) {
    if (renderError) return renderError(query.error);
    return (
      <QueryError
        error={query.error}
        title={errorTitle}
        onRetry={canRetry ? () => query.refetch() : undefined}
      />
    );
  }
  return children(query.data);
}

/** A query's error as QueryView shows it: the title, the API's message, and "Try again" if it may help. */
export function QueryError({
  error,
  title,
  onRetry,
}: {
  error: Error;
  title?: string | undefined;
  onRetry?: (() => void) | undefined;
}) {
  return (
    <Alert tone="error" title={title}>
      <p>{errorMessage(error)}</p>
      {onRetry ? (
        <Button variant="secondary" size="small" onPress={onRetry}>
          Try again
        </Button>
      ) : null}
    </Alert>
  );
}
