// Every CLI command, one line each (new commands: add a file in this folder and a line here).
import type { Command } from '../command';
import { ask } from './ask';
import { calibrateCommand } from './calibrate';
import { convert } from './convert';
import { fetchModelCommand } from './fetch-model';
import { keys } from './keys';
import { serve } from './serve';

export const COMMANDS: Command[] = [serve, ask, calibrateCommand, convert, fetchModelCommand, keys];
