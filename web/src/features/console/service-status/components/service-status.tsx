import { useReadiness } from '../api/get-readiness';
import './service-status.css';

const LABELS = {
  pending: 'checking…',
  ready: 'operational',
  unavailable: 'unavailable',
} as const;

/** The API's readiness probe, so an operator sees at once when the service itself is down. */
export function ServiceStatus() {
  const { data, isError } = useReadiness();
  const state = isError ? 'unavailable' : (data ?? 'pending');
  return (
    <p className="service-status" data-state={state}>
      <span className="service-status__dot" aria-hidden="true" />
      Service status: <strong>{LABELS[state]}</strong>
    </p>
  );
}
