import type { ReactNode } from 'react';
import './home-layout.css';

export interface HomeLayoutProps {
  heading: string;
  intro: ReactNode;
  primary: ReactNode;
  secondary: ReactNode;
}

/** An app's front page: its heading and purpose, then two columns that stack on narrow screens. */
export function HomeLayout({ heading, intro, primary, secondary }: HomeLayoutProps) {
  return (
    <div className="home">
      <div className="home__intro">
        <h1>{heading}</h1>
        <p>{intro}</p>
      </div>
      <div className="home__columns">
        <div className="home__primary">{primary}</div>
        <div className="home__secondary">{secondary}</div>
      </div>
    </div>
  );
}
