/** A fixed-window counter per key (daily code budget, manual webhook retries). */
export interface RateWindowsTable {
  key: string;
  window_started_at: number;
  count: number;
}

export interface LimitsTables {
  rate_windows: RateWindowsTable;
}
