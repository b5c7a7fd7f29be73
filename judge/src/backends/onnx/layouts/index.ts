// The strategy of each graph layout.
import type { GraphLayout } from '../graph-layout';
import { noPast } from './no-past';
import { plainPast } from './plain-past';
import { sharedPrefix } from './shared-prefix';
import type { LayoutStrategy } from './strategy';

export type { LayoutStrategy } from './strategy';

export const STRATEGIES: Readonly<Record<GraphLayout, LayoutStrategy>> = {
  'shared-prefix': sharedPrefix,
  'plain-past': plainPast,
  'no-past': noPast,
};
