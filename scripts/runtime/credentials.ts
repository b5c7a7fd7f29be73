// Credential templates (scripts/runtime/credentials/*.json): the one implementation is credential-templates.js.
import path from 'node:path';

export { loadCredentialTemplates, renderCredentialTemplate, type N8nCredential } from './credential-templates';

export const CREDENTIAL_TEMPLATES_DIR = path.join(__dirname, 'credentials');
