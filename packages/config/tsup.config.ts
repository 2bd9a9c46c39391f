import { libraryConfig } from '@harness/tsup-config';

export default libraryConfig(['src/index.ts', 'src/yaml.ts', 'src/zod.ts', 'src/instance.ts']);
