// The KeyStore contract (test/contracts/key-store.ts) against the in-memory store of the tests.
import { keyStoreContract } from '../../contracts/key-store.ts';
import { CountingKeyStore } from '../../support/keys.ts';

keyStoreContract('CountingKeyStore', {
  setup: () => ({ store: new CountingKeyStore() }),
});
