import { formatDate, formatDateTime, formatRelative, formatTime } from '@/lib/format';

export interface DateTimeProps {
  value: string;
  /**
   * inline (default): "Nov 24, 2026, 11:16 PM"; relative: "3 hours ago" above the absolute date;
   * stacked: the date above the time, for narrow table columns.
   */
  variant?: 'inline' | 'relative' | 'stacked';
}

/** A moment as a <time> element, in the operator's locale and time zone. */
export function DateTime({ value, variant = 'inline' }: DateTimeProps) {
  if (variant === 'inline') return <time dateTime={value}>{formatDateTime(value)}</time>;
  const [first, second] =
    variant === 'relative'
      ? [formatRelative(value), formatDateTime(value)]
      : [formatDate(value), formatTime(value)];
  return (
    <time dateTime={value} className={`date-time date-time--${variant}`}>
      <span className="date-time__relative">{first}</span>{' '}
      <span className="date-time__absolute">{second}</span>
    </time>
  );
}
