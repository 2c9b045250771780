// The KeyVerdicts contract (test/contracts/key-verdicts.ts) against the embedded verdicts: the
// in-memory key store of the tests, then the in-process limiter.
import { InMemoryRateLimiter } from '../../../gateway/access/in-memory-rate-limiter.ts';
import { EmbeddedKeyVerdicts } from '../../../gateway/access/key-verdicts.ts';
import { keyVerdictsContract } from '../../contracts/key-verdicts.ts';
import { CountingKeyStore } from '../../support/keys.ts';

keyVerdictsContract('EmbeddedKeyVerdicts', {
  setup() {
    const store = new CountingKeyStore();
    return { store, verdicts: (options: { limit: number; windowSeconds: number }) => new EmbeddedKeyVerdicts(store, new InMemoryRateLimiter(options)) };
  },
});
