// What `npm start` hands its operator (local/operator.ts): the tokens it made up, printed with a purge ready to
// paste (by the CLI and by curl); tokens the user set are named, never printed; and the note the CLI reads.

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noteStack, operatorLines, withOperatorSettings } from '../../local/operator.ts';
import type { RawConfig } from '../../shared/config/config.ts';

const NOTE = { url: 'http://127.0.0.1:8787', statsToken: 'stats-made-up', purgeToken: 'purge-made-up' };
const MADE_UP = { statsToken: true, purgeToken: true };

describe('npm start: what it prints for the operator', () => {
  it('prints the purge token it made up, with a ready npm run purge and curl', () => {
    const lines = operatorLines(NOTE, MADE_UP, false);
    expect(lines).toContain('  purge   http://127.0.0.1:8787/__tiercache/purge  token purge-made-up');
    expect(lines).toContain('          npm run purge -- --url /index.html --port 8787');
    expect(lines).toContain(
      `          curl -X POST http://127.0.0.1:8787/__tiercache/purge -H 'Authorization: Bearer purge-made-up' -H 'Content-Type: application/json' -d '{"urls":["/index.html"]}'`,
    );
    expect(lines[0]).toBe(
      '  stats   http://127.0.0.1:8787/__tiercache/stats  token stats-made-up  (a browser asks for it: any user name, the token as password)',
    );
    expect(lines.join('\n')).toContain('npm run stats -- --port 8787    (the CLI reads .build/local/stacks/8787.json');
  });

  it('names tokens the user set instead of printing them', () => {
    const lines = operatorLines(NOTE, { statsToken: false, purgeToken: false }, false).join('\n');
    expect(lines).not.toContain('stats-made-up');
    expect(lines).not.toContain('purge-made-up');
    expect(lines).toContain('token (yours, PURGE_TOKEN)');
    expect(lines).toContain('token (yours, STATS_TOKEN)');
    expect(lines).toContain("-H 'Authorization: Bearer $PURGE_TOKEN'");
  });

  it('says which tokens it made up', () => {
    const config: RawConfig = { PURGE_TOKEN: 'mine' };
    const tokens = withOperatorSettings(config, {});
    expect(tokens.madeUp).toEqual({ statsToken: true, purgeToken: false });
    expect(tokens.purgeToken).toBe('mine');
    expect(tokens.statsToken).toBe(config.STATS_TOKEN);
  });
});

describe('npm start: the note the CLI reads', () => {
  it('is a file of its own per port, readable by this user only, with the process id, removed on stop', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'tiercache-note-')), 'stacks');
    try {
      const forget = await noteStack(NOTE, dir);
      const file = join(dir, '8787.json');
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ ...NOTE, pid: process.pid });
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      await forget();
      await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
