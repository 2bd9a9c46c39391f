import { libraryConfig } from '@harness/tsup-config';

export default libraryConfig(['src/index.ts']);
