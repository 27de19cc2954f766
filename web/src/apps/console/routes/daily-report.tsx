import { DailyReportPage } from '@/features/console/daily-report/components/daily-report-page';

export function DailyReportRoute() {
  return <DailyReportPage />;
}
