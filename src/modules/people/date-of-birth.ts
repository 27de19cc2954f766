import { validationError } from '../../platform/errors/errors.js';

/**
 * Age limits of a person on file (a compliance representative, a team member) on a real date
 * (YYYY-MM-DD) in the past, in completed calendar years on today's UTC date: the 18th birthday is
 * the first day a person is 18.
 */
function dobProblem(dob: string, now: number): string | undefined {
  const today = new Date(now).toISOString().slice(0, 10);
  if (dob >= today) return 'must be in the past';
  const [year, month, day] = dob.split('-').map(Number) as [number, number, number];
  const [thisYear, thisMonth, thisDay] = today.split('-').map(Number) as [number, number, number];
  const hadBirthday = thisMonth > month || (thisMonth === month && thisDay >= day);
  const age = thisYear - year - (hadBirthday ? 0 : 1);
  if (age < 18) return 'the person must be at least 18 years old';
  if (age > 120) return 'the person must be at most 120 years old';
  return undefined;
}

/** 422 on `dob` unless the person is 18 to 120 years old on `now`. */
export function checkDob(dob: string, now: number): void {
  const problem = dobProblem(dob, now);
  if (problem) throw validationError({ dob: [problem] });
}
