// Every CLI command, one line each (new commands: add a file in this folder and a line here).
import type { Command } from '../command';
import { ask } from './ask';
import { convert } from './convert';
import { fetchModelCommand } from './fetch-model';
import { serve } from './serve';

export const COMMANDS: Command[] = [serve, ask, convert, fetchModelCommand];
