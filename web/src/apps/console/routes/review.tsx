import { ReviewQueue } from '@/features/review-queue/components/review-queue';

export function ReviewRoute() {
  return <ReviewQueue />;
}
