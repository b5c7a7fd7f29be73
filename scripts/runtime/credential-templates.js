// Credential templates → `n8n import:credentials` JSON. Plain CommonJS so that both the TypeScript runtime and a
// bare `node` (the n8n Docker image, see docker-compose.yml) use this one implementation; types: *.d.ts beside it.
//
// A template is scripts/runtime/credentials/<name>.json, an object { id, name, type, data } whose strings may hold
// `${ENV_VAR}` (required) or `${ENV_VAR:-default}` (optional; `${ENV_VAR:-}` for empty). Nothing secret is committed.
//
// CLI: node credential-templates.js <templates dir> <output file>   (fills from process.env; output mode 600)
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (see above) */
const fs = require('node:fs');
const path = require('node:path');

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}/g;

function fill(value, env, missing) {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_all, name, hasDefault, fallback) => {
      const given = env[name];
      if (given !== undefined && given !== '') return given;
      if (hasDefault !== undefined) return fallback;
      missing.add(name);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, env, missing));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, env, missing)]));
  }
  return value;
}

/** Validates one template and fills its placeholders; errors name the file and the field or variable. */
function renderCredentialTemplate(template, env, file) {
  if (!template || typeof template !== 'object' || Array.isArray(template)) {
    throw new Error(`${file}: a credential template must be a JSON object {id, name, type, data}`);
  }
  for (const field of ['id', 'name', 'type']) {
    if (typeof template[field] !== 'string' || template[field].trim() === '') {
      throw new Error(`${file}: field "${field}" must be a non-empty string`);
    }
  }
  if (!template.data || typeof template.data !== 'object' || Array.isArray(template.data)) {
    throw new Error(`${file}: field "data" must be an object`);
  }
  const missing = new Set();
  const data = fill(template.data, env, missing);
  if (missing.size > 0) {
    throw new Error(
      `${file}: environment variable ${[...missing].join(', ')} is not set ` +
        '(write ${NAME:-default} in the template to make it optional)',
    );
  }
  return { id: template.id, name: template.name, type: template.type, data };
}

/** Every *.json template in `dirs`, rendered from `env`, in file-name order. Duplicate ids are an error. */
function loadCredentialTemplates(dirs, env) {
  const credentials = [];
  const seen = new Map();
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const file = path.join(dir, name);
      let parsed;
      try {
        parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (error) {
        throw new Error(`${file}: not valid JSON (${error.message})`);
      }
      const credential = renderCredentialTemplate(parsed, env, file);
      const earlier = seen.get(credential.id);
      if (earlier) throw new Error(`${file}: credential id "${credential.id}" is also used by ${earlier}`);
      seen.set(credential.id, file);
      credentials.push(credential);
    }
  }
  return credentials;
}

module.exports = { renderCredentialTemplate, loadCredentialTemplates };

if (require.main === module) {
  const [dir, output] = process.argv.slice(2);
  if (!dir || !output) {
    process.stderr.write('usage: node credential-templates.js <templates dir> <output file>\n');
    process.exit(2);
  }
  try {
    const credentials = loadCredentialTemplates([dir], process.env);
    fs.writeFileSync(output, JSON.stringify(credentials), { mode: 0o600 });
    process.stdout.write(`${credentials.length} credential(s) rendered\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
