import { libraryConfig } from '@harness/tsup-config';

export default libraryConfig(['src/index.ts', 'src/client.ts', 'src/schema.ts', 'src/server.ts']);
