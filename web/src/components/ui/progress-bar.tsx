import { ProgressBar as AriaProgressBar, Label } from 'react-aria-components';
import './form-controls.css';

/** How far something has come (0 to 1), with its label and percentage; announced as a progressbar. */
export function ProgressBar({ label, value }: { label: string; value: number }) {
  const percent = Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <AriaProgressBar className="progress" value={percent}>
      {({ valueText }) => (
        <>
          <Label>{label}</Label>
          <span>{valueText}</span>
          <span className="progress__track" aria-hidden="true">
            <span className="progress__fill" style={{ width: `${percent}%` }} />
          </span>
        </>
      )}
    </AriaProgressBar>
  );
}
