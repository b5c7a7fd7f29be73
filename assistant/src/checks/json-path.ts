// A value's path in a JSON document: `data.items[0].price`, `$.data.price` or `["odd key"].value`.
import { AssistantInputError } from '../errors';

export type PathStep = string | number;

const STEP = /^(?:\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*'([^']*)'\s*\])/;

export function parseJsonPath(path: string): PathStep[] {
  let rest = path.trim().replace(/^\$/, '');
  if (rest === '') throw new AssistantInputError('path', 'is empty: give the path of the value, e.g. data.price');
  const steps: PathStep[] = [];
  while (rest.length > 0) {
    const match = STEP.exec(rest);
    if (!match) {
      throw new AssistantInputError(
        'path',
        `cannot read "${path}" near "${rest.slice(0, 20)}": write keys with dots and list items in brackets, e.g. data.items[0].price`,
      );
    }
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else if (match[3] !== undefined) steps.push(JSON.parse(`"${match[3]}"`) as string);
    else steps.push(match[4]);
    rest = rest.slice(match[0].length);
  }
  return steps;
}

/** The value at `path`, or `{ found: false, at }` naming the first step that is missing. */
export function valueAtPath(
  document: unknown,
  path: string,
): { found: true; value: unknown } | { found: false; at: string } {
  let current: unknown = document;
  let walked = '';
  for (const step of parseJsonPath(path)) {
    walked += typeof step === 'number' ? `[${step}]` : walked ? `.${step}` : step;
    if (typeof step === 'number') {
      if (!Array.isArray(current) || step >= current.length) return { found: false, at: walked };
      current = current[step];
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, step)) {
        return { found: false, at: walked };
      }
      current = (current as Record<string, unknown>)[step];
    }
  }
  return { found: true, value: current };
}
