// The KeyStore contract (test/contracts/key-store.ts) against the key file, on a fresh temporary
// directory per test, with no file yet; another FileKeyStore on the same path stands for another
// process (the CLI beside a running gateway).
import { keyStoreContract } from '../../contracts/key-store.ts';
import { temporaryKeyFile } from '../../support/keys.ts';

keyStoreContract('FileKeyStore', {
  async setup() {
    const file = await temporaryKeyFile();
    return { file, store: file.open(), other: () => file.open() };
  },
  teardown: ({ file }) => file.remove(),
  capabilities: ['other'],
});
