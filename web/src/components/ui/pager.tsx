import type { useCursorPages } from '@/lib/use-cursor-pages';
import { Button } from './button';
import './ui.css';

export interface PagerProps {
  /** Where the list is (useCursorPages). */
  pages: ReturnType<typeof useCursorPages>;
  /** The page shown's next_cursor: null on the last page. */
  nextCursor: string | null;
  /** Names the navigation landmark: "Review queue pages". */
  label: string;
}

/** Previous and next through a cursor-paginated list (docs/partner-guide.md, "Pagination"). */
export function Pager({ pages, nextCursor, label }: PagerProps) {
  if (!pages.hasPrevious && !nextCursor) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Button variant="secondary" size="small" isDisabled={!pages.hasPrevious} onPress={pages.previous}>
        Previous page
      </Button>
      <span className="pager__page">Page {pages.page}</span>
      <Button
        variant="secondary"
        size="small"
        isDisabled={!nextCursor}
        onPress={() => nextCursor && pages.next(nextCursor)}
      >
        Next page
      </Button>
    </nav>
  );
}
