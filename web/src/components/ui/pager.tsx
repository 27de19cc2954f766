import { Button } from './button';
import './ui.css';

export interface PagerProps {
  /** 1-based number of the page shown. */
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  /** Names the navigation landmark: "Review queue pages". */
  label: string;
}

/** Previous and next through a cursor-paginated list (CONTRACT 4.7). */
export function Pager({ page, hasPrevious, hasNext, onPrevious, onNext, label }: PagerProps) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Button variant="secondary" size="small" isDisabled={!hasPrevious} onPress={onPrevious}>
        Previous page
      </Button>
      <span className="pager__page">Page {page}</span>
      <Button variant="secondary" size="small" isDisabled={!hasNext} onPress={onNext}>
        Next page
      </Button>
    </nav>
  );
}
