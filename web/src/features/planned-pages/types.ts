/** A page of the app that is designed (CONTRACT.md section 7) but not built yet. */
export interface PlannedPageInfo {
  /** The route inside the app, in react-router syntax: `partners/:companyId`. */
  route: string;
  /** Where the list links to; none for a page reached from another (a partner from the queue). */
  href?: string;
  title: string;
  /** Labels of the route's parameters, shown with their values: `{ companyId: 'Company ID' }`. */
  params?: Record<string, string>;
  description: string;
}
