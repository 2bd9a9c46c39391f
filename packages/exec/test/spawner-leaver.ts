// A caller that starts a spawner and closes it before it is up (spawner.test.ts): its first run goes
// directly and starts the spawner, and the caller closes the channel at once.
import { createSpawner, run } from '../src/index';

const spawner = createSpawner();
await run({ argv: ['true'], env: { PATH: process.env.PATH ?? '' }, spawner });
await spawner.close();
