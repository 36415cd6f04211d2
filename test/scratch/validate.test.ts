import { it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
it('v', async () => {
  const v = new Validator();
  const r = await v.validate(JSON.parse(readFileSync('/tmp/edges-spec.json', 'utf8')));
  console.log(v.version, JSON.stringify(r).slice(0, 3000));
});
