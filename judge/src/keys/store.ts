// Opens the configured key store.
import { FileKeyStore } from './file-store';
import { PostgresKeyStore } from './postgres-store';
import type { KeyStoreConfig } from './config';
import type { KeyStore } from './types';

export async function openKeyStore(config: KeyStoreConfig): Promise<KeyStore> {
  return config.kind === 'file' ? new FileKeyStore(config.file) : PostgresKeyStore.open(config.databaseUrl);
}

export const isKeyStore = (value: KeyStoreConfig | KeyStore): value is KeyStore =>
  typeof (value as KeyStore).lookup === 'function';
