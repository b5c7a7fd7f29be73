// The one-off-time rules of each language the assistant reads times in.
import type { ScheduleLanguage } from '../locale';
import { de } from './de';
import { en } from './en';
import { es } from './es';
import { fr } from './fr';
import { it } from './it';
import { ja } from './ja';
import type { WhenLanguage } from './language';
import { nl } from './nl';
import { pt } from './pt';

export type { WhenLanguage } from './language';

export const WHEN_LANGUAGES: Record<ScheduleLanguage, WhenLanguage> = { en, de, fr, es, pt, nl, it, ja };
