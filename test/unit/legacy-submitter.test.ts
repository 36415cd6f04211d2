import { describe, expect, it } from 'vitest';
import { importedSubmitter } from '../../src/core/records/original-export.js';
import { commandLineName, legacyName } from '../../web/src/lib/submitter.js';

describe('submitters of the original service, imported and shown', () => {
  it('keeps provider/id as given and puts anything else under legacy/', () => {
    expect(['discord/1', 'pomu.app', '186447523415293952'].map(importedSubmitter)).toEqual(['discord/1', 'legacy/pomu.app', 'legacy/186447523415293952']);
  });

  it('shows a host name as the automatic submitter and any other value as an imported user, without asking the server', () => {
    expect(legacyName('legacy/pomu.app')?.name).toBe('pomu.app (automatic)');
    expect(legacyName('legacy/186447523415293952')?.name).toBe('186447523415293952 (imported)');
    expect(legacyName('legacy/10.0.0.1')?.name).toBe('10.0.0.1 (imported)');
    expect(legacyName('discord/186447523415293952')).toBeNull();
  });

  it('shows the operator’s kura archive as the system user on the command line, without asking the server', () => {
    expect(commandLineName('cli/root')).toEqual({ name: 'root (command line)', title: 'Queued with kura archive by the system user root' });
    expect(commandLineName('local/cli')).toBeNull();
  });
});
