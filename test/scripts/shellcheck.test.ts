// Every shell script of the repository passes shellcheck (Debian's), sourced helpers followed.
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/runtime/n8n';

const scripts = execFileSync('git', ['ls-files', '*.sh'], { cwd: REPO_ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);

describe('shell scripts', () => {
  it('are found: setup.sh, the install, backup and Docker test scripts', () => {
    expect(scripts).toEqual(
      expect.arrayContaining([
        'setup.sh',
        'scripts/test-docker.sh',
        'scripts/docker-backup.sh',
        'docker/test/images.sh',
      ]),
    );
  });

  it.each(scripts)('%s passes shellcheck', (script) => {
    // From the repository's root: `# shellcheck source=scripts/lib/…` directives are relative to it.
    const result = spawnSync('shellcheck', ['-x', script], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(result.error, 'shellcheck is not installed (apt-get install shellcheck)').toBeUndefined();
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
