import type { ReactNode } from 'react';
import './ui.css';

export interface CardProps {
  /** Names the card's region for assistive technology (its heading's id). */
  labelledBy?: string;
  className?: string;
  children: ReactNode;
}

export function Card({ labelledBy, className, children }: CardProps) {
  return (
    <section className={className ? `card ${className}` : 'card'} aria-labelledby={labelledBy}>
      {children}
    </section>
  );
}
