import { ReviewQueue } from '@/features/console/review-queue/components/review-queue';

export function ReviewRoute() {
  return <ReviewQueue />;
}
