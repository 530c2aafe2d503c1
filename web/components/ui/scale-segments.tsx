import type { ReactNode } from 'react';
import { Label, Radio, RadioGroup } from 'react-aria-components';

/**
 * A rating scale as one row of numbered segments with its end labels under it: the confidence
 * scale and the per-case survey items. Values run from `min`; each segment's accessible name is
 * its number and label.
 */
export function ScaleSegments({
  label,
  levels,
  value,
  onChange,
  isDisabled,
  className,
  min = 1,
}: {
  label: ReactNode;
  levels: readonly string[];
  value: string | null;
  onChange: (value: string) => void;
  isDisabled?: boolean;
  className?: string;
  min?: number;
}) {
  return (
    <RadioGroup value={value} onChange={onChange} isDisabled={isDisabled} orientation="horizontal" className={`radio-group ${className ?? ''}`.trim()}>
      <Label className="answer-label">{label}</Label>
      <div className={`segments segments-${levels.length}`}>
        {levels.map((text, i) => (
          <Radio key={text} value={String(min + i)} aria-label={`${min + i}. ${text}`} className="radio choice segment">
            {min + i}
          </Radio>
        ))}
      </div>
      <div className="scale-ends" aria-hidden="true">
        <span>{levels[0]}</span>
        <span>{levels[levels.length - 1]}</span>
      </div>
    </RadioGroup>
  );
}
