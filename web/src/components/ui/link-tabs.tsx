import type { ReactNode } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { useLocation } from 'react-router';
import './link-tabs.css';

export interface LinkTab {
  /** The tab's page, in the app (`/developers/api-keys`). */
  href: string;
  label: string;
}

/**
 * Tabs whose each tab is a page of its own (React Aria Tabs with links): the tab of the current
 * address is selected. Arrow keys move between tabs and Enter opens one (manual activation), so a
 * keyboard user is not sent to another page by merely moving along the tabs.
 */
export function LinkTabs({ label, tabs, children }: { label: string; tabs: LinkTab[]; children: ReactNode }) {
  const { pathname } = useLocation();
  const selected =
    tabs.find((tab) => pathname === tab.href || pathname.startsWith(`${tab.href}/`))?.href ??
    tabs[0]?.href ??
    '';
  return (
    <Tabs className="link-tabs" selectedKey={selected} keyboardActivation="manual">
      <TabList aria-label={label} className="link-tabs__list">
        {tabs.map((tab) => (
          <Tab key={tab.href} id={tab.href} href={tab.href} className="link-tabs__tab">
            {tab.label}
          </Tab>
        ))}
      </TabList>
      {/* One panel per tab, as each tab's aria-controls names its own; only the selected one renders. */}
      {tabs.map((tab) => (
        <TabPanel key={tab.href} id={tab.href} className="link-tabs__panel">
          {children}
        </TabPanel>
      ))}
    </Tabs>
  );
}
