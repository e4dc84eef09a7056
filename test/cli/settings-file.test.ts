// The one value a deploy writes back into the settings file (cli/settings-file.ts): the KV namespace's id, in place,
// and nothing else of the file changed.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordNamespaceId } from '../../cli/settings-file.ts';

const ID = 'c'.repeat(32);
let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tiercache-settings-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('recordNamespaceId', () => {
  it('writes the id in place of the value there, in TypeScript or JSON, and changes nothing else', async () => {
    const ts = join(folder, 'a.ts');
    const text =
      "export default {\n  purgesNamespace: 'tiercache-purges',\n  // Its id.\n  purgesNamespaceId: '',\n};\n";
    await writeFile(ts, text);
    await recordNamespaceId(ts, ID);
    expect(await readFile(ts, 'utf8')).toBe(text.replace("purgesNamespaceId: ''", `purgesNamespaceId: '${ID}'`));
    await recordNamespaceId(ts, 'd'.repeat(32));
    expect(await readFile(ts, 'utf8')).toContain(`purgesNamespaceId: '${'d'.repeat(32)}'`);
    const json = join(folder, 'b.mjs');
    await writeFile(json, 'export default {"purgesNamespace":"t","purgesNamespaceId":""};');
    await recordNamespaceId(json, ID);
    expect(await readFile(json, 'utf8')).toBe(`export default {"purgesNamespace":"t","purgesNamespaceId":"${ID}"};`);
  });

  it('says what to write by hand when the file has no purgesNamespaceId field, and leaves it as it was', async () => {
    const ts = join(folder, 'a.ts');
    await writeFile(ts, "export default { purgesNamespace: 'tiercache-purges' };\n");
    await expect(recordNamespaceId(ts, ID)).rejects.toThrow(
      `write \`purgesNamespaceId: '${ID}'\` in it, run \`npm run config\`, and deploy again`,
    );
    expect(await readFile(ts, 'utf8')).toBe("export default { purgesNamespace: 'tiercache-purges' };\n");
  });
});
